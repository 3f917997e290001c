import { z } from "zod";
import type { Db } from "../db/client.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import { access, defineRoute } from "../http/route.ts";
import type { IdempotencyStore } from "../idempotency/service.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { admitBeforeUpload } from "../usage/admit.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Clock } from "../lib/time.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { DiskFloor } from "../storage/disk-space.ts";
import { uploadsTmpDir } from "../storage/paths.ts";
import type { UploadsInFlight } from "../uploads/in-flight.ts";
import { createMeeting } from "./create.ts";
import { deleteMeeting } from "./delete.ts";
import { assertDiskAdmitsRecordings } from "./disk-admission.ts";
import { listParticipants, patchMeeting } from "./patch.ts";
import { listMeetings } from "./query.ts";
import { discardReceived, receiveMeeting, type KnownTemplates } from "./receive.ts";
import { getOwnedMeetingRow, renderMeeting, renderParticipant, renderUnattributedSpeaker } from "./render.ts";
import {
  createMeetingJson,
  createMeetingUpload,
  listMeetingsQuery,
  meetingPageSchema,
  meetingParams,
  meetingSchema,
  participantSchema,
  patchMeetingBody,
} from "./schema.ts";

export interface MeetingRouteDeps {
  db: Db;
  /** Truncates the database's WAL after a deletion (db/wal-truncation.ts). */
  wal: WalTruncation;
  dataDir: string;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  idempotency: IdempotencyStore;
  egress: EgressPolicy;
  maxUploadBytes: number;
  /** The document templates and personas of the catalogue, which meetings may ask for. */
  templates: KnownTemplates;
  /** Uploads being received per account, capped at the plan's processing slots. */
  uploads: UploadsInFlight;
  /** A recording's announced duration, reserved at admission. */
  measureRecording(path: string): Promise<number | null>;
  /** The data disk's reserve: below it, new recordings are refused (507). */
  minFreeDisk: DiskFloor;
  publicApiUrl(): string;
  scheduler: { wake(): void; cancel(jobIds: string[]): void };
}

export function meetingRoutes(deps: MeetingRouteDeps) {
  const owned = (userId: string, meetingId: string) => {
    const row = getOwnedMeetingRow(deps.db, userId, meetingId);
    if (!row) throw ApiError.notFound(`Meeting ${meetingId}`);
    return row;
  };
  return [
    defineRoute({
      method: "POST",
      path: "/api/v1/meetings",
      operationId: "createMeeting",
      summary: "Upload a recording (multipart file) or point at one (JSON audio_url); answers 202 with the queued meeting and its job",
      tag: "Meetings",
      access: access.allOf("write:meetings"),
      requestBodyDoc: {
        "multipart/form-data": createMeetingUpload.and(z.object({ file: z.string().meta({ format: "binary", description: "The recording: audio or video, at most 2 GB (2,000,000,000 bytes); checked by its first bytes (415 unsupported_media otherwise)" }) })),
        "application/json": createMeetingJson,
      },
      responses: { 202: { description: "Accepted: the meeting (status queued) with its job", schema: meetingSchema } },
      errors: [
        "file_too_large",
        "unsupported_media",
        "parallel_processing_limit",
        "insufficient_balance",
        "spend_cap_reached",
        "idempotency_key_in_use",
        "idempotency_key_reused",
        "malformed_body",
        "unsupported_media_type",
        "insufficient_storage",
        "request_timeout",
        "upload_incomplete",
      ],
      handle: async ({ principal, request }) => {
        const account = { userId: principal.user.id, plan: principal.user.plan };
        let releaseUpload: (() => void) | undefined;
        try {
          const outcome = await deps.idempotency.run({
            userId: account.userId,
            operation: "POST /v1/meetings",
            key: request.headers.get("idempotency-key"),
            parse: async ({ replay }) => {
              // Receiving an upload writes it to disk, a replay's too (to compare it); a JSON replay writes nothing.
              if (!replay || isMultipart(request)) assertDiskAdmitsRecordings(deps.dataDir, deps.minFreeDisk);
              return receiveMeeting(request, {
                tmpDir: uploadsTmpDir(deps.dataDir),
                egress: deps.egress,
                maxUploadBytes: deps.maxUploadBytes,
                templates: deps.templates,
                owner: { db: deps.db, userId: account.userId },
                // Once the request is known valid (its fields, before the file of an upload): a malformed
                // request is a 400 whatever the account's slots and balance.
                admit: () => {
                  // Fail fast when every slot is busy, before a long upload; checked again when creating.
                  // Not for a replay: the retry of an accepted request gets its answer even while its own job holds the slot.
                  if (!replay) {
                    admitBeforeUpload(deps.db, deps, { account, channel: "api" }, deps.clock.now());
                  }
                  // Each upload in progress holds a growing temp file: at most the plan's slots at once.
                  if (isMultipart(request)) releaseUpload = deps.uploads.acquire(account.userId, deps.slots[account.plan] ?? 1);
                },
              });
            },
            execute: async ({ fields, recording }, complete) => {
              let body: unknown;
              await createMeeting(deps, account, fields, recording, (tx, meetingId) => {
                // Rendered in the creating transaction, before the scheduler wakes: the meeting as accepted, queued.
                body = renderMeeting(tx, getOwnedMeetingRow(tx, account.userId, meetingId)!, deps.publicApiUrl());
                complete(tx, { status: 202, body }, meetingId);
              });
              deps.scheduler.wake();
              return { status: 202, body };
            },
            discard: discardReceived,
          });
          return { status: outcome.status, body: outcome.body, headers: outcome.replayed ? { "Idempotent-Replayed": "true" } : undefined };
        } finally {
          releaseUpload?.();
        }
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings",
      operationId: "listMeetings",
      summary: "The account's meetings, most recent first, filtered",
      tag: "Meetings",
      access: access.allOf("read:meetings"),
      query: listMeetingsQuery,
      responses: { 200: { description: "A page of meetings", schema: meetingPageSchema } },
      handle: ({ principal, query }) => ({ status: 200, body: listMeetings(deps.db, principal.user.id, query, deps.publicApiUrl()) }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id",
      operationId: "getMeeting",
      summary: "One meeting with its report, participants, documents and latest job (for polling)",
      tag: "Meetings",
      access: access.allOf("read:meetings"),
      params: meetingParams,
      responses: { 200: { description: "The meeting", schema: meetingSchema } },
      handle: ({ principal, params }) => ({
        status: 200,
        body: renderMeeting(deps.db, owned(principal.user.id, params.meeting_id), deps.publicApiUrl()),
      }),
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/meetings/:meeting_id",
      operationId: "updateMeeting",
      summary: "Change title, date, tags, client or participants; the AI report is not regenerated",
      tag: "Meetings",
      access: access.allOf("write:meetings"),
      params: meetingParams,
      body: patchMeetingBody,
      responses: { 200: { description: "The meeting", schema: meetingSchema } },
      errors: ["malformed_body", "unsupported_media_type"],
      handle: ({ principal, params, body }) => {
        patchMeeting(deps.db, deps.clock, principal.user.id, params.meeting_id, body);
        return { status: 200, body: renderMeeting(deps.db, owned(principal.user.id, params.meeting_id), deps.publicApiUrl()) };
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/api/v1/meetings/:meeting_id",
      operationId: "deleteMeeting",
      summary: "Delete the meeting, its recording, transcript, report and documents; cancels processing",
      tag: "Meetings",
      access: access.allOf("write:meetings"),
      params: meetingParams,
      responses: { 204: { description: "Deleted" } },
      handle: ({ principal, params }) => {
        deleteMeeting({ db: deps.db, dataDir: deps.dataDir, wal: deps.wal, cancelJobs: (ids) => deps.scheduler.cancel(ids) }, principal.user.id, params.meeting_id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/participants",
      operationId: "listParticipants",
      summary: "Participants, and transcript speakers attributed to no one (id null)",
      tag: "Meetings",
      access: access.allOf("read:meetings"),
      params: meetingParams,
      responses: { 200: { description: "Participants", schema: z.object({ data: z.array(participantSchema) }) } },
      handle: ({ principal, params }) => {
        const meeting = owned(principal.user.id, params.meeting_id);
        const { rows, unattributed } = listParticipants(deps.db, meeting.id);
        return {
          status: 200,
          body: {
            data: [
              ...rows.map(renderParticipant),
              ...unattributed.map(renderUnattributedSpeaker),
            ],
          },
        };
      },
    }),
  ];
}

function isMultipart(request: Request): boolean {
  return (request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

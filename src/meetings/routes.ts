import { z } from "zod";
import type { Actor } from "../auth/actor.ts";
import type { Principal } from "../auth/authenticate.ts";
import { access, defineRoute } from "../http/route.ts";
import type { MeetingsApp } from "./app.ts";
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
  /** The meetings' use cases (meetings/app.ts). */
  meetings: MeetingsApp;
}

/** Who is acting, for the use cases: the caller of an API route. */
export function apiActor(principal: Principal): Actor {
  return { account: { userId: principal.user.id, plan: principal.user.plan }, channel: "api", credential: principal.credential, clientAddress: principal.clientAddress };
}

export function meetingRoutes({ meetings }: MeetingRouteDeps) {
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
        const outcome = await meetings.receiveUpload(apiActor(principal), request, { idempotencyKey: request.headers.get("idempotency-key") });
        return { status: outcome.status, body: outcome.body, headers: outcome.replayed ? { "Idempotent-Replayed": "true" } : undefined };
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
      handle: async ({ principal, query }) => ({ status: 200, body: await meetings.list(apiActor(principal), query) }),
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
      handle: async ({ principal, params }) => ({ status: 200, body: await meetings.get(apiActor(principal), params.meeting_id) }),
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
      handle: async ({ principal, params, body }) => ({ status: 200, body: await meetings.patch(apiActor(principal), params.meeting_id, body) }),
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
      handle: async ({ principal, params }) => {
        await meetings.delete(apiActor(principal), params.meeting_id);
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
      handle: async ({ principal, params }) => ({ status: 200, body: { data: await meetings.participants(apiActor(principal), params.meeting_id) } }),
    }),
  ];
}

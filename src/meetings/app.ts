import type { z } from "zod";
import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import type { TxConn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ExportInput } from "../exports/bundle.ts";
import type { StoredReport } from "../reports/types.ts";
import type { TranscriptDocument, TranscriptMeta } from "../transcripts/types.ts";
import { checkBeforeUpload } from "../usage/admission-store.ts";
import { correctionsOf, correctionText, storeSegmentCorrection, undoSegmentCorrection, type SegmentCorrection } from "./corrections-store.ts";
import { createMeeting, type Recording } from "./create.ts";
import { deleteMeeting } from "./delete.ts";
import { assertDiskAdmitsRecordings } from "./disk-admission.ts";
import { ownedExportInput } from "./export-input.ts";
import { storeMeetingPatch } from "./patch-store.ts";
import { meetingsPage, type MeetingOrder } from "./list-store.ts";
import { failureCodes, searchSnippets } from "./list-extras-store.ts";
import { bulkMeetingsApp } from "./bulk-app.ts";
import type { MeetingsAppDeps } from "./app-deps.ts";
import { draftsApp } from "./drafts-app.ts";
import { meetingPageApp } from "./page-app.ts";
import { discardReceived, receiveMeeting, type ReceivedMeeting } from "./receive.ts";
import { queueReportOnly } from "./queue-store.ts";
import { loadReportSource, transcriptChars, writeSummarizeInput } from "./regenerate-report.ts";
import { renderedMeetings, renderParticipant, renderUnattributedSpeaker, type RenderedMeeting } from "./render.ts";
import { redactionSettingsApp } from "./redaction-app.ts";
import { ownedReport } from "./report.ts";
import { createMeetingUpload, type CreateMeetingFields, type listMeetingsQuery, type PatchMeeting } from "./schema.ts";
import { speakerNamesPatch } from "./speaker-names.ts";
import { assertOwnClient, findOwnedMeeting, meetingParticipants, type MeetingRow } from "./store.ts";
import { storeTextMeeting, textMeeting } from "./text-source.ts";
import type { ParsedTextTranscript } from "./text-transcript.ts";
import { parseTranscriptFile } from "./transcript-import.ts";
import { ownedTranscript } from "./transcript.ts";


/** What the routes and pages need beside the use cases: the request schemas, the bounds, the domain types. */
export { MAX_PART_BYTES, MIN_PART_BYTES, type DraftLimits } from "./draft-limits.ts";
export { MEETING_ORDERS, type MeetingOrder } from "./list-store.ts";
export { MATCH_END, MATCH_START } from "./list-extras-store.ts";
export { MAX_BULK_MEETINGS, type BulkOutcome } from "./bulk-app.ts";
export type { LiveTranscript } from "./live-transcript.ts";
/** A meeting as its use cases answer it: one view for the API's JSON and the web app's pages alike. */
export type { RenderedMeeting as MeetingView } from "./render.ts";
export { createMeetingUpload, listMeetingsQuery, patchMeetingBody, redactPiiFromField, vocabularyList } from "./schema.ts";
export type { MeetingRow, ParticipantRow } from "./store.ts";
export type { MeetingWorkspace } from "./workspace.ts";
export type { StoredFile } from "../storage/storage.ts";
export { MAX_TEXT_TRANSCRIPT_BYTES } from "./text-transcript.ts";
export { MAX_CASE_NUMBER_PATTERN, renderRedactionDefaults, type RedactionDefaults } from "./redaction.ts";
export { ENTITY_KINDS, type EntityKind } from "../redaction/types.ts";

export type { MeetingAccess, MeetingsAppDeps } from "./app-deps.ts";
export type { MeetingPageData } from "./page-app.ts";

/** A web app upload that named a URL instead of sending a file (the web form only sends files). */
export class UploadRequired extends Error {
  constructor() {
    super("The web app's upload needs a file.");
  }
}

/** What receiving a new meeting answers: the API's response (a replay's, stored) and the meeting's id. */
export interface ReceivedUpload {
  status: number;
  body: unknown;
  replayed: boolean;
  /** The meeting created; null for a replay (its body holds the meeting as first answered). */
  meetingId: string | null;
}


const isMultipart = (request: Request) => (request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");

/**
 * The meetings' use cases: what the API routes (meetings/routes.ts) and the web app's pages call.
 * Each takes who is acting (auth/actor.ts), does its checks (the meeting is the actor's own, else
 * 404), its admission, its transaction through the stores (meetings/store.ts and the store faces
 * beside each concern), its events, and wakes the scheduler when it queued a job. Routes only
 * parse input, call one of these, and render what it answers.
 */
export function meetingsApp(deps: MeetingsAppDeps) {
  const { conn } = deps;
  const audit = deps.audit ?? NO_AUDIT_TRAIL;
  /** Records what `actor` did to a meeting: ids and names of fields only, never content. */
  const audited = (actor: Actor, action: string, meetingId: string, detail?: Record<string, string | number | boolean | null>) =>
    audit.record(actorEntry(actor, action, { type: "meeting", id: meetingId }, detail));

  /** One of the actor's meetings; any other id (another account's, or none) is a 404. */
  const owned = async (actor: Actor, meetingId: string): Promise<MeetingRow> => {
    const row = await findOwnedMeeting(conn, actor.account.userId, meetingId);
    if (!row) throw ApiError.notFound(`Meeting ${meetingId}`);
    return row;
  };

  // Shared with the use-case families spread in below (drafts-app.ts, page-app.ts).
  const access = { owned, audited };

  const render = async (row: MeetingRow): Promise<RenderedMeeting> => (await renderedMeetings(conn, [row], deps.publicApiUrl()))[0]!;

  /**
   * The fail-fast admission before a long upload or a URL is queued (no reservation; checked again
   * when the job is created): a free processing slot, and what the channel pays with: the API's
   * wallet, or the web app's monthly audio quota. Not for a replay: the retry of an accepted
   * request gets its answer even while its own job holds the slot. The multipart reader awaits it
   * between a form's fields and its file, before reading the file on.
   */
  const admitBeforeReceiving = async (actor: Actor, replay: boolean) => {
    // The API's retry of an accepted request gets its answer even while its own job holds the slot.
    if (actor.channel === "api" && replay) return;
    await checkBeforeUpload(conn, deps, actor, deps.clock.now());
  };

  /** The meeting and its processing job, then the scheduler woken. */
  const create = async (
    actor: Actor,
    fields: CreateMeetingFields,
    recording: Recording,
    inTransaction?: Parameters<typeof createMeeting>[4],
  ): Promise<{ meetingId: string; jobId: string }> => {
    const created = await createMeeting(deps, actor.account, fields, recording, inTransaction, actor.channel);
    deps.scheduler.wake();
    await audited(actor, AUDIT_ACTIONS.meetingCreated, created.meetingId, { source: recording.kind });
    return created;
  };

  /**
   * A meeting from a given transcript: its text stored, its report-only job queued (none with
   * transcribe_only), the scheduler woken. `inTransaction` as for create. The meeting's id.
   */
  const fromTranscript = async (
    actor: Actor,
    fields: CreateMeetingFields,
    parsed: ParsedTextTranscript,
    inTransaction?: (tx: TxConn, meetingId: string) => Promise<void>,
  ): Promise<string> => {
    const meeting = textMeeting(fields, parsed, deps.clock.now());
    try {
      await writeSummarizeInput(deps.storage, meeting.id, meeting.transcript);
      await storeTextMeeting(conn, deps, actor.account, meeting, actor.channel, (stored) => writeSummarizeInput(deps.storage, meeting.id, stored), inTransaction);
    } catch (error) {
      await deps.storage.delete(meeting.id);
      throw error;
    }
    deps.scheduler.wake();
    await audited(actor, AUDIT_ACTIONS.meetingCreated, meeting.id, { source: "text" });
    return meeting.id;
  };

  /** Changes title, date, tags, client or participants (the report is not written again); the meeting after. */
  const patch = async (actor: Actor, meetingId: string, change: PatchMeeting): Promise<RenderedMeeting> => {
    await storeMeetingPatch(conn, actor.account.userId, meetingId, change, deps.clock.now());
    const row = await owned(actor, meetingId);
    // Which fields changed, never their values (a title or a participant's name is content).
    await audited(actor, AUDIT_ACTIONS.meetingUpdated, row.id, { fields: Object.keys(change).sort().join(",") });
    return render(row);
  };

  /**
   * Deletes one of the actor's meetings and everything holding its content (meetings/delete.ts):
   * its unfinished jobs canceled first, rows in one transaction, the WAL truncated, then its files.
   */
  const deleteOne = async (actor: Actor, meetingId: string): Promise<void> => {
    await deleteMeeting({ ...deps, cancelJobs: (ids) => deps.scheduler.cancel(ids) }, actor.account.userId, meetingId);
    await audited(actor, AUDIT_ACTIONS.meetingDeleted, meetingId.toLowerCase());
  };

  return {
    create,

    ...redactionSettingsApp(deps),

    /**
     * A new meeting from a request: multipart with the recording's file, or (API) JSON with
     * audio_url. The API's Idempotency-Key is honoured (a replay answers the first response); the
     * web app's form sends no key, and its empty inputs mean "not given". The request is validated,
     * then the account admitted, then the file streamed to disk (the disk's reserve checked first),
     * then the meeting created and its job queued in one transaction, the key completed in it.
     */
    async receiveUpload(actor: Actor, request: Request, options: { idempotencyKey: string | null }): Promise<ReceivedUpload> {
      const { account } = actor;
      let releaseUpload: (() => void) | undefined;
      let meetingId: string | null = null;
      try {
        const outcome = await deps.idempotency.run<ReceivedMeeting>({
          userId: account.userId,
          operation: "POST /v1/meetings",
          key: actor.channel === "api" ? options.idempotencyKey : null,
          parse: async ({ replay }) => {
            // Receiving an upload writes it to disk, a replay's too (to compare it); a JSON replay writes nothing.
            if (!replay || isMultipart(request)) assertDiskAdmitsRecordings(deps.storage, deps.minFreeDisk);
            return receiveMeeting(request, {
              tmpDir: deps.storage.tmpDir,
              egress: deps.egress,
              maxUploadBytes: deps.maxUploadBytes,
              templates: deps.templates,
              dropEmptyFields: actor.channel === "webapp",
              requireOwnClient: (clientId) => assertOwnClient(conn, account.userId, clientId),
              // Once the request is known valid (its fields, before the file of an upload): a malformed
              // request is a 400 whatever the account's slots and balance.
              admit: async () => {
                await admitBeforeReceiving(actor, replay);
                // Each upload in progress holds a growing temp file: at most the plan's slots at once.
                if (isMultipart(request) || actor.channel === "webapp") releaseUpload = deps.uploads.acquire(account.userId, deps.slots[account.plan] ?? 1);
              },
            });
          },
          execute: async ({ fields, recording }, complete) => {
            if (actor.channel === "webapp" && recording.kind !== "upload") throw new UploadRequired();
            let body: unknown = null;
            const inTransaction = async (tx: TxConn, id: string) => {
              if (actor.channel !== "api") return;
              // Rendered in the creating transaction, before the scheduler wakes: the meeting as accepted, queued.
              const row = (await findOwnedMeeting(tx, account.userId, id))!;
              body = (await renderedMeetings(tx, [row], deps.publicApiUrl()))[0]!;
              await complete(tx, { status: 202, body }, id);
            };
            meetingId =
              recording.kind === "transcript"
                ? await fromTranscript(actor, fields, recording.transcript, inTransaction)
                : (await create(actor, fields, recording, inTransaction)).meetingId;
            return { status: 202, body };
          },
          discard: discardReceived,
        });
        return { ...outcome, meetingId };
      } finally {
        releaseUpload?.();
      }
    },

    /**
     * A meeting from a text transcript (web app): pasted text, or a file in any format
     * transcript-import.ts reads (`fileName` hints at it); stored as the transcript gives it, its
     * named speakers made participants, and a report-only job queued. `field` names the form field
     * in a 400. The meeting's id.
     */
    async createFromText(actor: Actor, fields: CreateMeetingFields, text: string | Uint8Array, source: { fileName: string | null; field: string } = { fileName: null, field: "text" }): Promise<string> {
      return fromTranscript(actor, fields, parseTranscriptFile(text, source.fileName, source.field));
    },

    ...draftsApp(deps, access),

    /** One of the actor's meetings as the API shows it. */
    async get(actor: Actor, meetingId: string): Promise<RenderedMeeting> {
      const meeting = await render(await owned(actor, meetingId));
      // The meeting object carries its report's text.
      if (meeting.summary) await audited(actor, AUDIT_ACTIONS.reportRead, meeting.id, { via: "meeting" });
      return meeting;
    },

    /** One of the actor's meetings' row (the web app's pages: status, dates, the draft's times). */
    row: owned,

    /** The actor's meetings, filtered, newest first, one page. */
    async list(actor: Actor, query: z.output<typeof listMeetingsQuery>) {
      const page = await meetingsPage(conn, actor.account.userId, query, deps.publicApiUrl());
      // The API's meeting objects carry their reports' text; the web app's list shows titles only.
      if (actor.channel !== "webapp") for (const meeting of page.data) if (meeting.summary) await audited(actor, AUDIT_ACTIONS.reportRead, meeting.id, { via: "list" });
      return page;
    },

    /**
     * The web app's list (issue 25): a page in `order`, each failed meeting's error code, and when
     * searching, the words around each meeting's match (recorded as a read of its transcript).
     */
    async browse(actor: Actor, query: z.output<typeof listMeetingsQuery>, order: MeetingOrder) {
      const page = await meetingsPage(conn, actor.account.userId, query, deps.publicApiUrl(), order);
      const failures = await failureCodes(
        conn,
        page.data.filter((m) => m.status === "failed").map((m) => m.id),
      );
      const snippets = query.q ? await searchSnippets(conn, page.data.map((m) => m.id), query.q) : new Map<string, string>();
      for (const id of snippets.keys()) await audited(actor, AUDIT_ACTIONS.transcriptRead, id, { via: "search" });
      return { ...page, failures, snippets };
    },

    patch,

    ...bulkMeetingsApp(deps, { row: owned, patch, delete: deleteOne }),

    /** A new title (the title source becomes the user's); the meeting after. */
    rename: (actor: Actor, meetingId: string, title: string): Promise<RenderedMeeting> => patch(actor, meetingId, { title }),

    /** Gives each speaker label the name typed for it (the web app's speaker editor), under PATCH's rules. */
    async nameSpeakers(actor: Actor, meetingId: string, names: ReadonlyMap<string, string>): Promise<void> {
      const row = await owned(actor, meetingId);
      const { rows } = await meetingParticipants(conn, row.id);
      await storeMeetingPatch(conn, actor.account.userId, row.id, { participants: speakerNamesPatch(rows, names) }, deps.clock.now());
      await audited(actor, AUDIT_ACTIONS.speakersRenamed, row.id, { speakers: names.size });
    },

    /** The participants, then the transcript's speakers no participant holds (id null), as the API lists them. */
    async participants(actor: Actor, meetingId: string) {
      const row = await owned(actor, meetingId);
      const { rows, unattributed } = await meetingParticipants(conn, row.id);
      return [...rows.map(renderParticipant), ...unattributed.map(renderUnattributedSpeaker)];
    },

    /** Replaces the words of one transcript segment; the segment's words and version number. */
    async correctSegment(actor: Actor, meetingId: string, segmentIndex: number, typed: string): Promise<SegmentCorrection> {
      const text = correctionText(typed);
      const corrected = await storeSegmentCorrection(conn, actor.account.userId, meetingId, segmentIndex, text, deps.clock.now());
      await audited(actor, AUDIT_ACTIONS.transcriptCorrected, meetingId.toLowerCase(), { segment: segmentIndex, version: corrected.version });
      return corrected;
    },

    /** Takes back the last correction of one segment: its words as before it, and the versions left. */
    async undoCorrection(actor: Actor, meetingId: string, segmentIndex: number): Promise<SegmentCorrection> {
      const undone = await undoSegmentCorrection(conn, actor.account.userId, meetingId, segmentIndex, deps.clock.now());
      await audited(actor, AUDIT_ACTIONS.transcriptCorrected, meetingId.toLowerCase(), { segment: segmentIndex, version: undone.version, undone: true });
      return undone;
    },

    /** Every correction of one of the actor's meetings, oldest first. */
    async corrections(actor: Actor, meetingId: string) {
      return correctionsOf(conn, actor.account.userId, meetingId);
    },

    /**
     * Writes the meeting's report again from its transcript as it is now (a report-only job on the
     * actor's channel); the job's id. The transcript goes to the step's input file first.
     */
    async regenerateReport(actor: Actor, meetingId: string): Promise<string> {
      const source = await loadReportSource(conn, actor.account.userId, meetingId);
      await writeSummarizeInput(deps.storage, source.meetingId, source.transcript);
      const jobId = await queueReportOnly(conn, deps, actor.account, source.meetingId, actor.channel, transcriptChars(source.transcript), deps.clock.now());
      deps.scheduler.wake();
      await audited(actor, AUDIT_ACTIONS.reportRegenerated, source.meetingId, { job: jobId });
      return jobId;
    },

    /** Deletes one of the actor's meetings (deleteOne above). */
    delete: deleteOne,

    /** The transcript (speakers named) with the title and date its text formats show. */
    async transcript(actor: Actor, meetingId: string): Promise<{ transcript: TranscriptDocument; meta: TranscriptMeta }> {
      return ownedTranscript(conn, actor.account.userId, meetingId);
    },

    /** The meeting's AI report (409 summary_not_ready before it is written, or with transcribe_only). */
    async report(actor: Actor, meetingId: string): Promise<StoredReport> {
      return ownedReport(conn, actor.account.userId, meetingId);
    },

    /** Everything the meeting exports (exports/ builds the bundle from it). */
    async exportInput(actor: Actor, meetingId: string): Promise<ExportInput> {
      return ownedExportInput(conn, actor.account.userId, meetingId);
    },

    ...meetingPageApp(deps, { ...access, render }),

  };
}

export type MeetingsApp = ReturnType<typeof meetingsApp>;

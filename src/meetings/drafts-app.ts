import { AUDIT_ACTIONS } from "../audit/actions.ts";
import type { Actor } from "../auth/actor.ts";
import type { TxConn } from "../db/conn.ts";
import { parseOrThrow } from "../http/validation.ts";
import { checkBeforeUpload } from "../usage/admission-store.ts";
import type { MeetingAccess, MeetingsAppDeps } from "./app-deps.ts";
import { storeDraftMeeting } from "./create.ts";
import { assertDiskAdmitsRecordings } from "./disk-admission.ts";
import { draftDeletionTime } from "./draft-upkeep.ts";
import { assertDraftAdmitted, draftPartsOf } from "./draft-store.ts";
import { queueFinishedDraft, receiveDraftPart } from "./drafts.ts";
import { endLiveTranscript, hearGatheringPart, hearNewPart, liveTranscriptOf, type LiveTranscript } from "./live-transcript.ts";
import { createMeetingUpload } from "./schema.ts";
import type { MeetingRow } from "./store.ts";

/**
 * The web app's recordings made in parts (its recorder and resumable uploader): a draft meeting,
 * its parts, the live transcript heard from them, and the draft finished into a processed meeting.
 * Spread into meetingsApp (meetings/app.ts), whose ownership check and audit trail they share.
 */
export function draftsApp(deps: MeetingsAppDeps, { owned, audited }: MeetingAccess) {
  const { conn } = deps;
  return {
    /**
     * A draft meeting (the web app's recorder and resumable uploader): no recording yet, no job.
     * Refused before anyone records an hour when the month's web app audio has no minutes left
     * (checked before the form's fields, as createMeetingUpload reads them), and when the account
     * has as many drafts open as it may. The draft's id.
     */
    async createDraft(actor: Actor, form: unknown, origin: { source: "upload" | "live_recording"; fileName: string | null }): Promise<string> {
      // A draft holds no processing slot until it is finished.
      await checkBeforeUpload(conn, deps, actor, deps.clock.now(), { slot: false });
      const fields = parseOrThrow(createMeetingUpload, form);
      const admit = (tx: TxConn) => assertDraftAdmitted(tx, actor.account.userId, deps.drafts);
      const meetingId = await storeDraftMeeting(conn, { account: actor.account, fields, origin, admit }, deps.clock.now());
      await audited(actor, AUDIT_ACTIONS.meetingCreated, meetingId, { source: origin.source, draft: true });
      return meetingId;
    },

    /** Which parts of one of the actor's meetings arrived (its status tells whether it is still a draft). */
    async draftParts(actor: Actor, meetingId: string): Promise<{ status: MeetingRow["status"]; received: number[]; bytes: number }> {
      const row = await owned(actor, meetingId);
      const { indexes, bytes } = await draftPartsOf(conn, row.id);
      return { status: row.status, received: indexes, bytes };
    },

    /**
     * Stores part `index` of one of the actor's drafts. `read` reads the part's bytes (bounded by
     * the caller): it runs while the account holds one of its uploads in flight, as for uploads.
     */
    async storeDraftPart(actor: Actor, meetingId: string, index: number, read: () => Promise<Uint8Array>): Promise<void> {
      const { account } = actor;
      const release = deps.uploads.acquire(account.userId, deps.slots[account.plan] ?? 1);
      try {
        const bytes = await read();
        await receiveDraftPart(deps, account.userId, meetingId, index, bytes);
      } finally {
        release();
      }
      // The live transcript hears it (a recording's part); a failure there never refuses the part.
      await hearNewPart(deps, await owned(actor, meetingId)).catch(() => {});
    },

    /**
     * The part one of the actor's recordings is still gathering (under the minimum part size), for
     * its live transcript alone (meetings/live-transcript.ts); never part of the recording.
     */
    async storeGatheringPart(actor: Actor, meetingId: string, index: number, read: () => Promise<Uint8Array>): Promise<void> {
      const row = await owned(actor, meetingId);
      if (row.status !== "draft") return;
      assertDiskAdmitsRecordings(deps.storage, deps.minFreeDisk);
      await hearGatheringPart(deps, row, index, await read());
    },

    /** The provisional text of one of the actor's recordings still being made, from segment `after` on (another's: 404). */
    async liveTranscript(actor: Actor, meetingId: string, after: number): Promise<LiveTranscript> {
      return liveTranscriptOf(deps.storage, await owned(actor, meetingId), after);
    },

    /** Joins a draft's parts into its recording and queues its processing; the job's id. */
    async finishDraft(actor: Actor, meetingId: string, expectedBytes?: number): Promise<string> {
      const jobId = await queueFinishedDraft(deps, actor.account, meetingId, expectedBytes);
      deps.scheduler.wake();
      // Its whole transcript will replace the provisional one.
      await endLiveTranscript(deps, meetingId);
      return jobId;
    },

    /** When the idle sweep deletes a draft last touched at `updatedAt`. */
    draftDeletionTime: (updatedAt: number) => draftDeletionTime(updatedAt, deps.drafts),
  };
}

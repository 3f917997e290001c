import { AUDIT_ACTIONS } from "../audit/actions.ts";
import type { Actor } from "../auth/actor.ts";
import { RECORDING } from "../storage/paths.ts";
import type { StoredFile } from "../storage/storage.ts";
import type { TranscriptDocument } from "../transcripts/types.ts";
import type { MeetingAccess, MeetingsAppDeps } from "./app-deps.ts";
import { segmentsCorrected } from "./corrections-store.ts";
import { draftDeletionTime } from "./draft-upkeep.ts";
import { draftPartsCount } from "./draft-store.ts";
import { meetingProgress, type MeetingProgress } from "./progress-store.ts";
import type { RenderedMeeting } from "./render.ts";
import { meetingParticipants, type MeetingRow } from "./store.ts";
import { meetingTranscript } from "./transcript.ts";
import { hasVideoStream, transcriptionWords, wordsOfLines, type MeetingWorkspace } from "./workspace.ts";
import { failedJobCode } from "./workspace-store.ts";

/** Everything the web app's meeting page shows beside the meeting object. */
export interface MeetingPageData {
  row: MeetingRow;
  meeting: RenderedMeeting;
  /** Null while there is none. */
  transcript: TranscriptDocument | null;
  /** Every speaker label with the name of whoever holds it ("" when no one), sorted by label. */
  speakers: { label: string; name: string }[];
  hasRecording: boolean;
  pendingDocuments: number;
  rewritingReport: boolean;
  /** The segments a person corrected. */
  corrected: Set<number>;
  /** A draft's parts so far and when the idle sweep deletes it. */
  draft: { parts: number; bytes: number; deletesAt: number } | undefined;
  /** The transcript workspace's extras: why it failed, whether the recording is a video, the lines' word timings. */
  workspace: MeetingWorkspace;
}

/**
 * What the web app's meeting page reads: the page itself (with the transcript workspace's extras),
 * the progress its script polls and the recording for its player. Spread into meetingsApp
 * (meetings/app.ts), whose ownership check, audit trail and rendering they share.
 */
export function meetingPageApp(deps: MeetingsAppDeps, { owned, audited, render }: MeetingAccess & { render(row: MeetingRow): Promise<RenderedMeeting> }) {
  const { conn } = deps;
  return {
    /** Where the meeting's processing and documents stand (the web app's page polls it). */
    async progress(actor: Actor, meetingId: string): Promise<{ status: MeetingRow["status"] } & MeetingProgress> {
      const row = await owned(actor, meetingId);
      return { status: row.status, ...(await meetingProgress(conn, row.id)) };
    },

    /** The recording's file for the player (its size, byte ranges), or null when there is none (a draft, a text meeting, gone). */
    async recording(actor: Actor, meetingId: string): Promise<StoredFile | null> {
      const row = await owned(actor, meetingId);
      const file = await deps.storage.open(row.id, RECORDING);
      if (file) await audited(actor, AUDIT_ACTIONS.recordingRead, row.id);
      return file;
    },

    /** Everything the web app's meeting page shows. */
    async page(actor: Actor, meetingId: string): Promise<MeetingPageData> {
      const row = await owned(actor, meetingId);
      const meeting = await render(row);
      let transcript: TranscriptDocument | null = null;
      if (meeting.has_transcript) transcript = await meetingTranscript(conn, row).catch(() => null);
      const { rows, unattributed } = await meetingParticipants(conn, row.id);
      const speakers = [
        ...rows.flatMap((p) => p.speakerLabels.map((label) => ({ label, name: p.name }))),
        ...unattributed.map((label) => ({ label, name: "" })),
      ].sort((a, b) => a.label.localeCompare(b.label));
      const progress = await meetingProgress(conn, row.id);
      // The page shows the transcript and the report's text.
      if (transcript) await audited(actor, AUDIT_ACTIONS.transcriptRead, row.id, { via: "page" });
      if (meeting.summary) await audited(actor, AUDIT_ACTIONS.reportRead, row.id, { via: "page" });
      // Opened once: the player's "is there one" and the workspace's "is it a video".
      const recording = await deps.storage.open(row.id, RECORDING);
      const lines = transcript?.segments ?? [];
      return {
        row,
        meeting,
        transcript,
        speakers,
        hasRecording: recording !== null,
        pendingDocuments: progress.pendingDocuments,
        rewritingReport: progress.rewritingReport,
        corrected: await segmentsCorrected(conn, row.id),
        draft: row.status === "draft" ? { ...(await draftPartsCount(conn, row.id)), deletesAt: draftDeletionTime(row.updatedAt, deps.drafts) } : undefined,
        workspace: {
          failureCode: row.status === "failed" ? await failedJobCode(conn, row.id) : null,
          video: recording !== null && (await hasVideoStream(recording)),
          words: lines.length ? wordsOfLines(lines, await transcriptionWords(deps.storage, row.id)) : [],
        },
      };
    },
  };
}

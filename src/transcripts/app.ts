import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { renderTranscript } from "./render.ts";
import type { TranscriptDocument, TranscriptFormat, TranscriptMeta, TranscriptSegment } from "./types.ts";

/** A meeting's transcript with what the text formats show beside it. */
export interface OwnedTranscript {
  transcript: TranscriptDocument;
  meta: TranscriptMeta;
}

/** A transcript as a file to serve: body, media type and our own file name. */
export interface TranscriptFile {
  body: string;
  contentType: string;
  fileName: string;
}

/**
 * What the transcripts' use cases read and write through the meeting side (the transcript rows are
 * the meeting's: transcripts/ never imports meetings/; service.ts hands these in). Each may answer
 * now or later.
 */
export interface TranscriptsDeps {
  /** Throws not_found (not the actor's meeting) or transcript_not_ready. */
  loadOwnedTranscript(actor: Actor, meetingId: string): Promise<OwnedTranscript>;
  /** Replaces one segment's words, keeping the version and its author. */
  correctSegment(actor: Actor, meetingId: string, segmentIndex: number, text: string): Promise<{ text: string; version: number }>;
  /** Takes back the last correction of one segment: its words as before it, and the versions left. */
  undoCorrection(actor: Actor, meetingId: string, segmentIndex: number): Promise<{ text: string; version: number }>;
  /** Every correction of one of the actor's meetings, oldest first. */
  listCorrections(actor: Actor, meetingId: string): Promise<unknown[]>;
  /** Where each read of a transcript is recorded (audit/trail.ts). */
  audit?: AuditTrail;
}

/** The transcripts' use cases, for the API's routes and the web app's downloads and editor. */
export function transcriptsApp(deps: TranscriptsDeps) {
  const owned = async (actor: Actor, meetingId: string): Promise<OwnedTranscript> => deps.loadOwnedTranscript(actor, meetingId);
  const audit = deps.audit ?? NO_AUDIT_TRAIL;
  /** The transcript, its read recorded: who read which meeting's transcript, in which format. */
  const read = async (actor: Actor, meetingId: string, format: TranscriptFormat | "page"): Promise<OwnedTranscript> => {
    const owned_ = await owned(actor, meetingId);
    await audit.record(actorEntry(actor, AUDIT_ACTIONS.transcriptRead, { type: "meeting", id: owned_.transcript.meeting_id }, { format }));
    return owned_;
  };
  return {
    /** One of the actor's meetings' transcript; not_found or transcript_not_ready otherwise. */
    get: (actor: Actor, meetingId: string): Promise<OwnedTranscript> => read(actor, meetingId, "page"),

    /** The transcript in one of its formats, named `transcript-<meeting id>.<extension>`. */
    async file(actor: Actor, meetingId: string, format: TranscriptFormat): Promise<TranscriptFile> {
      const { transcript, meta } = await read(actor, meetingId, format);
      const rendered = renderTranscript(transcript, format, meta);
      return { body: rendered.body, contentType: rendered.contentType, fileName: `transcript-${transcript.meeting_id}.${rendered.fileExtension}` };
    },

    /** Corrects one segment's words: the words as kept, their version, and the segment as it now reads. */
    async correctSegment(actor: Actor, meetingId: string, segmentIndex: number, text: string): Promise<{ text: string; version: number; segment: TranscriptSegment }> {
      const saved = await deps.correctSegment(actor, meetingId, segmentIndex, text);
      const { transcript } = await owned(actor, meetingId);
      return { ...saved, segment: transcript.segments[segmentIndex]! };
    },

    /** Takes back a segment's last correction (the web app's history): the words it reads again, and the versions left. */
    undoCorrection: (actor: Actor, meetingId: string, segmentIndex: number) => deps.undoCorrection(actor, meetingId, segmentIndex),

    /** Every correction of the transcript's words, oldest first. */
    corrections: async (actor: Actor, meetingId: string) => deps.listCorrections(actor, meetingId),
  };
}

export type TranscriptsApp = ReturnType<typeof transcriptsApp>;

export { isTranscriptFormat, TRANSCRIPT_FORMATS } from "./render.ts";
export type { TranscriptDocument, TranscriptFormat, TranscriptSegment } from "./types.ts";

/**
 * The transcript's shapes, declared once: the engines produce SpeechSegments, the worker labels
 * them with speakers into a StoredTranscript, the meeting kind stores that in the transcripts
 * table (JSON columns typed with these), and the renderers turn it into the API's Transcript.
 */

/** A word and when it was said, in seconds from the start of the recording. */
export interface TimedWord {
  start: number;
  end: number;
  text: string;
}

/** A stretch of speech as transcribed, before anyone knows who spoke it. */
export interface SpeechSegment {
  start: number;
  end: number;
  text: string;
  words?: TimedWord[];
}

/** A stretch of speech with its speaker's diarization label (SPEAKER_00, ...), as stored. */
export interface LabelledSegment {
  start: number;
  end: number;
  speaker: string;
  text: string;
}

/** Who speaks when, from diarization: the time each speaker holds, whatever the words. */
export interface LabelledTurn {
  start: number;
  end: number;
  speaker: string;
}

/** What the diarize step writes and the transcripts table holds for one meeting. */
export interface StoredTranscript {
  language: string | null;
  model: string;
  durationSeconds: number;
  /** Every label heard, in order of first appearance. */
  speakers: string[];
  segments: LabelledSegment[];
  turns: LabelledTurn[];
}

/** One diarized, timestamped stretch of speech, as the API's Transcript object carries it. */
export interface TranscriptSegment {
  /** Seconds from the start of the recording. */
  start: number;
  /** Seconds from the start of the recording. */
  end: number;
  /** Diarization label, such as SPEAKER_00. */
  speaker: string;
  /** Name of the participant the label is attributed to, or null while unattributed. */
  speaker_name: string | null;
  text: string;
}

/** The API's Transcript object (object = transcript). */
export interface TranscriptDocument {
  object: "transcript";
  meeting_id: string;
  language: string | null;
  duration_seconds: number | null;
  model: string | null;
  speakers: string[];
  segments: TranscriptSegment[];
  /** Extension: the diarization turns, who speaks when, independent of how the text is segmented. */
  speaker_turns: { start: number; end: number; speaker: string }[];
  /** Extension (issue 23): personal-data redaction; present only when the meeting asked for it. */
  redaction?: TranscriptRedaction | null;
}

/** What the transcript says of its redaction: the kinds asked, those replaced with their counts, the audio silenced. */
export interface TranscriptRedaction {
  applied: boolean;
  requested: string[];
  entities: Partial<Record<string, number>>;
  audio: boolean;
}

/** Values of the format query parameter of GET /v1/meetings/{id}/transcript; json is the default. */
export const TRANSCRIPT_FORMATS = ["json", "md", "txt", "srt", "vtt"] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Meeting fields the text formats show beside the transcript itself. */
export interface TranscriptMeta {
  title: string;
  /** RFC 3339 date-time of the meeting (its recorded_at). */
  recordedAt: string;
}

export interface RenderedTranscript {
  body: string;
  /** Value for the Content-Type header. */
  contentType: string;
  /** File name extension without the dot, e.g. "srt", for a Content-Disposition file name. */
  fileExtension: string;
}

import { stepOutputName } from "../storage/paths.ts";
import type { Storage, StoredFile } from "../storage/storage.ts";
import type { SpeechSegment, TimedWord, TranscriptSegment } from "../transcripts/types.ts";

/**
 * What the web app's transcript workspace shows beside the meeting page (issue 25 item 4): why a
 * failed meeting failed, whether its recording holds a picture, and when each word of each
 * uncorrected line was said.
 */
export interface MeetingWorkspace {
  /** The failed processing job's code (errors/job-codes.ts), or null when none failed. */
  failureCode: string | null;
  /** The recording holds a video stream (told from its container's bytes, see hasVideoStream). */
  video: boolean;
  /**
   * Per transcript line, its words' character offsets in the line's text and their start times,
   * or null where the line has no word timings (a corrected line, a redacted or text meeting).
   */
  words: ({ offset: number; start: number }[] | null)[];
}

const HEAD_BYTES = 256 * 1024;
const TAIL_BYTES = 1024 * 1024;
const ascii = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/**
 * Whether a recording holds a video stream, from its container's own bytes (no decoding): an
 * MP4/MOV video track's handler ("hdlr…vide", near the start or, unless the file was made for
 * streaming, near the end), a WebM/Matroska video codec id ("V_VP8", "V_AV1"…), an AVI video
 * stream ("vids"), an Ogg Theora stream. Anything else plays as audio.
 */
export async function hasVideoStream(file: StoredFile): Promise<boolean> {
  const head = ascii(new Uint8Array(await file.slice(0, Math.min(HEAD_BYTES, file.size)).arrayBuffer()));
  if (head.slice(4, 8) === "ftyp") {
    const tail = file.size > HEAD_BYTES ? ascii(new Uint8Array(await file.slice(Math.max(HEAD_BYTES, file.size - TAIL_BYTES), file.size).arrayBuffer())) : "";
    return /hdlr[\s\S]{8}vide/.test(head) || /hdlr[\s\S]{8}vide/.test(tail);
  }
  if (head.startsWith("\x1a\x45\xdf\xa3")) return /V_(VP8|VP9|AV1|MPEG|MS\/|THEORA|UNCOMPRESSED|REAL)/.test(head);
  if (head.startsWith("RIFF") && head.slice(8, 12) === "AVI ") return head.includes("vids");
  if (head.startsWith("OggS")) return head.includes("\x80theora");
  return false;
}

const TIME_SLACK = 0.002;

/**
 * The transcription's words laid on the stored lines: a line gets the words that lie within its time, whose
 * texts, joined, are exactly its text (so a line a person corrected, or the glossary changed, gets
 * none), each with its character offset in the text.
 */
export function wordsOfLines(lines: readonly TranscriptSegment[], speech: readonly SpeechSegment[]): MeetingWorkspace["words"] {
  const words: TimedWord[] = speech.flatMap((s) => s.words ?? []).sort((a, b) => a.start - b.start);
  let from = 0;
  return lines.map((line) => {
    while (from < words.length && words[from]!.start < line.start - TIME_SLACK) from++;
    const own: TimedWord[] = [];
    for (let i = from; i < words.length && words[i]!.start <= line.end + TIME_SLACK; i++) {
      if (words[i]!.end <= line.end + TIME_SLACK && words[i]!.text.trim()) own.push(words[i]!);
    }
    if (own.length === 0) return null;
    const joined = own.map((w) => w.text).join("");
    const lead = joined.length - joined.trimStart().length;
    if (joined.trim() !== line.text) return null;
    let offset = -lead;
    return own.map((w) => {
      const at = { offset: Math.max(0, offset + (w.text.length - w.text.trimStart().length)), start: Math.round(w.start * 100) / 100 };
      offset += w.text.length;
      return at;
    });
  });
}

/** The transcription step's words of a meeting, when its file is still there (a redacted meeting's is not). */
export async function transcriptionWords(storage: Storage, meetingId: string): Promise<SpeechSegment[]> {
  const bytes = await storage.get(meetingId, stepOutputName("transcribe"));
  if (!bytes) return [];
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { segments?: unknown };
    return Array.isArray(parsed.segments) ? (parsed.segments as SpeechSegment[]).filter((s) => s && Array.isArray(s.words)) : [];
  } catch {
    return [];
  }
}

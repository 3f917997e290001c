import SrtParser from "srt-parser-2";
import { WebVTTParser, type WebVTTCue, type WebVTTNode } from "webvtt-parser";
// The full HTML entity table, as webvtt-parser's README advises (its built-in short table decodes "&amp;" as "&;").
import VTT_ENTITIES from "webvtt-parser/html-entities.json" with { type: "json" };
import { ApiError } from "../errors/api-error.ts";
import { MAX_CORRECTION_CHARS } from "./corrections-store.ts";
import { labelTurns, MAX_TRANSCRIPT_LINES, parseTextTranscript, speakerPrefix, type ParsedTextTranscript, type Turn } from "./text-transcript.ts";

/*
 * Transcripts written elsewhere, read into the segments and speakers a text meeting stores
 * (meetings/text-source.ts): WebVTT (Teams' <v Name> voice tags, Zoom's "Name:" cue prefixes),
 * SubRip (.srt, with or without "Name:"), SubViewer (.sbv, as Google Meet's and YouTube's
 * captions are downloaded) and plain text (text-transcript.ts, the web app's format, which also
 * reads the text Meet writes to its Google Docs transcript once the document's heading is
 * skipped). The content decides the format; the file's extension only says which format's error
 * to report when the content is none of them (a ".srt" that is not SubRip is refused, a ".txt" is
 * read as text). Every cue becomes a turn, and text-transcript.ts's labelTurns names the speakers
 * for all formats alike, with its bounds.
 */

export type TranscriptFormat = "vtt" | "srt" | "sbv" | "text";

export interface ImportedTranscript extends ParsedTextTranscript {
  format: TranscriptFormat;
}

/** A cue's words: at most what a correction may hold, so every segment stays correctable. */
export const MAX_CUE_CHARS = MAX_CORRECTION_CHARS;

/** Refused content: the 1-based line that failed and what was expected there. */
class FormatError extends Error {
  constructor(
    readonly line: number,
    readonly expected: string,
  ) {
    super(`line ${line}: ${expected}`);
  }
}

/**
 * Reads a transcript file (or pasted text) in any of the formats above. `field` names the form
 * field in the 400 problem: its detail says the line that failed and what was expected there.
 */
export function parseTranscriptFile(input: string | Uint8Array, fileName: string | null, field: string): ImportedTranscript {
  try {
    const text = typeof input === "string" ? input : decodeUtf8(input);
    const parsed = parseContent(text.replace(/^\uFEFF/, ""), extensionOf(fileName));
    if (parsed.segments.length === 0) throw invalidTranscript(field, "too_short", "The transcript has no words.");
    return parsed;
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    throw invalidTranscript(field, "invalid_format", `The transcript could not be read: ${error.message}.`);
  }
}

/** A 400 whose detail is the one thing wrong (a validation problem's detail only names the fields). */
function invalidTranscript(field: string, code: string, message: string): ApiError {
  return new ApiError("validation_error", message, { errors: [{ field, code, message }] });
}

function extensionOf(fileName: string | null): string {
  return /\.([A-Za-z0-9]{1,8})$/.exec(fileName ?? "")?.[1]!.toLowerCase() ?? "";
}

/** UTF-8 only (what every one of these tools writes); the line of the first byte that is not. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    let line = 1;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, i));
      } catch {
        break;
      }
      line++;
      start = i + 1;
    }
    throw new FormatError(line, "expected text in UTF-8 (a WebVTT, SubRip, SubViewer or text transcript), found bytes that are not");
  }
}

const SRT_TIMING = /^(\d{1,2}):(\d{2}):(\d{2})[,.](\d{1,3})[ \t]*-->[ \t]*(\d{1,2}):(\d{2}):(\d{2})[,.](\d{1,3})(?:[ \t].*)?$/;
const SBV_TIMING = /^(\d{1,2}):(\d{2}):(\d{2})\.(\d{1,3}),(\d{1,2}):(\d{2}):(\d{2})\.(\d{1,3})$/;
const CUE_NUMBER = /^\d{1,9}$/;

function parseContent(text: string, extension: string): ImportedTranscript {
  if (text.includes("\0")) throw new FormatError(lineOf(text, text.indexOf("\0")), "expected text, found a NUL byte (a binary file?)");
  const lines = text.split(/\r\n|\r|\n/);
  const first = lines.findIndex((line) => line.trim() !== "");
  const head = (first >= 0 ? lines[first]! : "").trim();
  if (/^WEBVTT(?:[ \t].*)?$/.test(lines[0] ?? "") || extension === "vtt") return { format: "vtt", ...parseVtt(text) };
  if ((CUE_NUMBER.test(head) && SRT_TIMING.test((lines[first + 1] ?? "").trim())) || extension === "srt") {
    return { format: "srt", ...parseCueBlocks(lines, SUBRIP) };
  }
  if (SBV_TIMING.test(head) || extension === "sbv") return { format: "sbv", ...parseCueBlocks(lines, SUBVIEWER) };
  return { format: "text", ...parseTextTranscript(withoutMeetHeading(lines).join("\n")) };
}

/** The 1-based line of an offset, lines broken as parseContent breaks them (CRLF, CR or LF). */
function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split(/\r\n|\r|\n/).length;
}

const BACKWARDS = "expected a cue that ends at or after its start";

// What webvtt-parser reports that loses nothing: header lines ("Kind: captions", "Language: en",
// as YouTube and Zoom write them) without a blank line, and a cue that ends where it starts (one
// that ends before it starts is refused below).
const HARMLESS_VTT_ERRORS = new Set(["No blank line after the signature.", "End timestamp is not greater than start timestamp."]);

function parseVtt(text: string): ParsedTextTranscript {
  const { cues, errors } = new WebVTTParser(VTT_ENTITIES as Record<string, string>).parse(text, "metadata");
  const fatal = errors.find((error) => !HARMLESS_VTT_ERRORS.has(error.message));
  if (fatal) {
    const message = fatal.message.replace(/\.$/, "");
    throw new FormatError(fatal.line, `WebVTT: ${message[0]!.toLowerCase()}${message.slice(1)} (expected a cue: an optional identifier line, a timing line such as 00:00:01.000 --> 00:00:04.000, then its words)`);
  }
  if (cues.length > MAX_TRANSCRIPT_LINES) throw new FormatError(cueLine(text, cues[MAX_TRANSCRIPT_LINES]!), `expected at most ${MAX_TRANSCRIPT_LINES.toLocaleString("en-US")} cues`);
  const turns = cues.flatMap((cue) => {
    if (cue.endTime < cue.startTime) throw new FormatError(cueLine(text, cue), BACKWARDS);
    const spoken = voiceTurns(cue);
    const long = spoken.find((turn) => turn.text.length > MAX_CUE_CHARS);
    if (long) throw new FormatError(cueLine(text, cue), `expected a cue of at most ${MAX_CUE_CHARS.toLocaleString("en-US")} characters`);
    return spoken;
  });
  return labelTurns(turns);
}

/** The line of a cue's timing (webvtt-parser keeps no line numbers for the cues it read). */
function cueLine(text: string, cue: WebVTTCue): number {
  const ms = Math.round(cue.startTime * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  const hours = Math.floor(ms / 3_600_000);
  const clock = `${two(Math.floor(ms / 60_000) % 60)}:${two(Math.floor(ms / 1000) % 60)}\\.${String(ms % 1000).padStart(3, "0")}`;
  const timing = new RegExp(`^${hours ? `0*${hours}:` : "(?:0*0:)?"}${clock}[ \\t]+-->`, "m").exec(text);
  return timing ? lineOf(text, timing.index) : 1;
}

/**
 * A cue's turns: each <v Name> span is its speaker's turn (Teams writes one per cue; a cue may
 * hold several), words outside any voice span are the cue's own turn, named by a leading "Name:"
 * when there is one (Zoom). Tags other than <v> (<c>, <b>, <i>, <lang>, timestamps) only wrap words.
 */
function voiceTurns(cue: WebVTTCue): Turn[] {
  const turns: Turn[] = [];
  let loose = "";
  const flushLoose = () => {
    if (loose.trim() === "") return;
    const named = speakerPrefix(loose);
    turns.push({ start: cue.startTime, end: cue.endTime, name: named?.name ?? null, text: named?.text ?? loose });
    loose = "";
  };
  for (const node of cue.tree.children) {
    if (node.type === "object" && node.name === "v") {
      flushLoose();
      turns.push({ start: cue.startTime, end: cue.endTime, name: decodeVoice(String(node.value ?? "")) || null, text: wordsOf(node.children ?? []) });
    } else {
      loose += wordsOf([node]);
    }
  }
  flushLoose();
  return turns;
}

function wordsOf(nodes: readonly WebVTTNode[]): string {
  return nodes.map((node) => (node.type === "text" ? String(node.value ?? "") : node.type === "object" ? wordsOf(node.children ?? []) : "")).join("");
}

/** A <v> annotation keeps WebVTT's escapes (webvtt-parser 2.2.0 leaves them): decoded as a player's tokenizer does. */
function decodeVoice(value: string): string {
  return value.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&").trim();
}

/** A cue-block format: cues separated by blank lines, each an optional number, a timing line and its words. */
interface CueBlocks {
  name: string;
  numbered: boolean;
  timing: RegExp;
  example: string;
}

const SUBRIP: CueBlocks = { name: "SubRip", numbered: true, timing: SRT_TIMING, example: "00:00:01,000 --> 00:00:04,000" };
const SUBVIEWER: CueBlocks = { name: "SubViewer", numbered: false, timing: SBV_TIMING, example: "0:00:01.000,0:00:04.000" };

interface Block {
  line: number;
  start: string;
  end: string;
  words: string[];
}

/**
 * Checks the blocks line by line (srt-parser-2 checks nothing: it splits on what looks like a
 * cue's number and timing, and a line it does not understand silently joins the words before
 * it), then hands srt-parser-2 the cues written as plain SubRip, one timing form, and reads
 * times and words from it.
 */
function parseCueBlocks(lines: readonly string[], format: CueBlocks): ParsedTextTranscript {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let state: "between" | "timing" | "words" = "between";
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    const number = index + 1;
    if (state === "words") {
      if (line === "") state = "between";
      else current!.words.push(raw);
      continue;
    }
    if (state === "between") {
      if (line === "") continue;
      if (blocks.length === MAX_TRANSCRIPT_LINES) throw new FormatError(number, `expected at most ${MAX_TRANSCRIPT_LINES.toLocaleString("en-US")} cues`);
      if (format.numbered) {
        if (!CUE_NUMBER.test(line)) throw new FormatError(number, `${format.name}: expected a cue number, found ${quote(line)}`);
        state = "timing";
        continue;
      }
    }
    const timing = format.timing.exec(line);
    if (!timing) throw new FormatError(number, `${format.name}: expected a cue timing such as ${format.example}, found ${quote(line)}`);
    const clock = (i: number) => `${timing[i]!.padStart(2, "0")}:${timing[i + 1]}:${timing[i + 2]},${timing[i + 3]!.padEnd(3, "0")}`;
    current = { line: number, start: clock(1), end: clock(5), words: [] };
    blocks.push(current);
    state = "words";
  }
  if (state === "timing") throw new FormatError(lines.length, `${format.name}: expected a cue timing such as ${format.example} after the cue number, found the end of the file`);
  const cues = new SrtParser().fromSrt(subrip(blocks));
  const diverging = blocks.findIndex((block, i) => cues[i]?.startTime !== block.start);
  if (diverging >= 0 || cues.length !== blocks.length) {
    // A cue's words held a line of digits then a timing line: read as a cue of its own.
    const at = blocks[diverging >= 0 ? diverging - 1 : blocks.length - 1] ?? blocks[0]!;
    throw new FormatError(at.line, `${format.name}: expected a cue's words, found a cue number and timing inside them`);
  }
  for (const [i, block] of blocks.entries()) {
    if (cues[i]!.endSeconds < cues[i]!.startSeconds) throw new FormatError(block.line, `${format.name}: ${BACKWARDS}`);
    if (block.words.join(" ").length > MAX_CUE_CHARS) throw new FormatError(block.line, `expected a cue of at most ${MAX_CUE_CHARS.toLocaleString("en-US")} characters`);
  }
  return labelTurns(
    cues.map((cue) => {
      const named = speakerPrefix(cue.text);
      return { start: cue.startSeconds, end: cue.endSeconds, name: named?.name ?? null, text: named?.text ?? cue.text };
    }),
  );
}

/** The checked blocks as plain SubRip: numbered in order, one timing form. */
function subrip(blocks: readonly Block[]): string {
  return blocks.map((block, i) => `${i + 1}\n${block.start} --> ${block.end}\n${block.words.join("\n")}\n`).join("\n");
}

function quote(line: string): string {
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
}

/**
 * Google Meet's transcript document begins with a heading ("<title> - Transcript", "Attendees"
 * and their names, a notice that it was computer generated) before its first time line: that
 * heading is not what anyone said. Anything else is read whole.
 */
function withoutMeetHeading(lines: readonly string[]): readonly string[] {
  const first = lines.findIndex((line) => line.trim() !== "");
  if (first < 0 || !/\s-\s(?:Transcript|Transcription)\s*$/i.test(lines[first]!)) return lines;
  const firstTime = lines.findIndex((line) => /^\s*(?:\d{1,2}:)?\d{1,2}:\d{2}\s*$/.test(line));
  return firstTime > first && firstTime - first <= 40 ? lines.slice(firstTime) : lines;
}

/**
 * md (Markdown, CommonMark with GitHub's extensions in mind):
 *
 *     # <title>
 *
 *     Date: YYYY-MM-DD · Duration: h:mm:ss · Language: xx
 *
 *     **Name** [HH:MM:SS]
 *     text of one or more consecutive segments of that speaker, joined by spaces
 *
 * - The date is the calendar date written in recordedAt (the service writes UTC); a part whose
 *   value is unknown (null duration or language, unreadable date) is left out of the line.
 * - Consecutive segments whose displayed name is the same are merged into one block, stamped with
 *   the first one's start in whole seconds. Blocks are separated by a blank line; LF line endings
 *   and a final newline. Segments without text are left out; with none left the body says
 *   "No speech was detected.".
 * - Escaping is minimal, with backslashes, so that names, title and text stay literal: everywhere
 *   \ ` * ~ [ ] < | (emphasis, code, links, images, autolinks, raw HTML, tables), _ unless between
 *   two letters or digits (SPEAKER_00 stays readable, it cannot make emphasis), & only where it
 *   would start an entity (&amp;), # in the title (a closing heading sequence); and at the start
 *   of the text line, whatever would open a block or underline the name line as a heading:
 *   # > - + = : and "1." or "1)".
 * - Bare URLs in text stay bare (GitHub shows them as links whose text is the URL itself).
 * - A redacted transcript (issue 23) has an emphasized line after the facts saying so (formats/redaction-note.ts).
 */
import { clock, duration, oneLine, spokenSegments } from "../normalize.ts";
import type { TranscriptDocument, TranscriptMeta } from "../types.ts";
import { redactionNote } from "./redaction-note.ts";

export function renderMarkdown(doc: TranscriptDocument, meta: TranscriptMeta): string {
  const title = escapeInline(oneLine(meta.title) || "Transcript").replace(/#/g, "\\#");
  const parts = [`# ${title}\n`];

  const facts: string[] = [];
  const date = calendarDate(meta.recordedAt);
  if (date) facts.push(`Date: ${date}`);
  if (typeof doc.duration_seconds === "number" && Number.isFinite(doc.duration_seconds) && doc.duration_seconds >= 0) {
    facts.push(`Duration: ${duration(doc.duration_seconds)}`);
  }
  const language = oneLine(doc.language ?? "");
  if (language) facts.push(`Language: ${escapeInline(language)}`);
  if (facts.length > 0) parts.push(`${facts.join(" · ")}\n`);
  const note = redactionNote(doc.redaction);
  if (note) parts.push(`_${escapeInline(note)}_\n`);

  const blocks: { name: string; startMs: number; texts: string[] }[] = [];
  for (const segment of spokenSegments(doc.segments)) {
    const last = blocks.at(-1);
    if (last && last.name === segment.displayName) last.texts.push(segment.text);
    else blocks.push({ name: segment.displayName, startMs: segment.startMs, texts: [segment.text] });
  }
  if (blocks.length === 0) parts.push("No speech was detected.\n");
  for (const block of blocks) {
    parts.push(`**${escapeInline(block.name)}** [${clock(block.startMs)}]\n${escapeLineStart(escapeInline(block.texts.join(" ")))}\n`);
  }
  return parts.join("\n");
}

/** YYYY-MM-DD as written at the head of an RFC 3339 date-time; else the UTC date of any parseable date; else null. */
function calendarDate(recordedAt: string): string | null {
  const written = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[Tt ]|$)/.exec(recordedAt);
  if (written) return `${written[1]}-${written[2]}-${written[3]}`;
  const ms = Date.parse(recordedAt);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : null;
}

/** Backslash-escapes what could make markup anywhere in a line. */
function escapeInline(text: string): string {
  return text
    .replace(/[\\`*~[\]<|]/g, "\\$&")
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\_")
    .replace(/&(?=#?[0-9A-Za-z]+;)/g, "\\&");
}

/** Backslash-escapes what would open a block (or turn the line above into a heading) at line start. */
function escapeLineStart(line: string): string {
  return line.replace(/^[#>+=:-]/, "\\$&").replace(/^(\d+)([.)])/, "$1\\$2");
}

/**
 * The names the web app's downloads are saved under (issue 25, item 5): the meeting's date and
 * title, "2026-11-25 Incident review – Ward 4.pdf", never an id. A name is the person's own words,
 * so it is cleaned before it reaches a header: no path separator, control or format character
 * (bidi overrides included), quote or character Windows refuses in a file name, and a bounded length.
 * The header carries it twice (RFC 6266): `filename=` in plain ASCII for old clients, and
 * `filename*=UTF-8''…` (RFC 8187) with the accents and dashes.
 */

/** Longest title and suffix kept, in characters (a whole name stays well under 255 bytes' worth of most file systems). */
const MAX_TITLE = 100;
const MAX_SUFFIX = 60;

/** Characters a file name must not carry: controls, format characters, separators, quotes, Windows' reserved. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}"*:<>?|]/gu;

const cut = (text: string, max: number) => {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join("").trimEnd()}…` : text;
};

/** One part of a name as the person wrote it, made safe: one line, no separator, bounded. */
export function safeNamePart(text: string, max = MAX_TITLE): string {
  const cleaned = text
    .normalize("NFC")
    .replace(/[\\/]/g, "-")
    .replace(UNSAFE, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+|[.\s]+$/g, "");
  return cut(cleaned, max);
}

/**
 * A meeting's download name: its date (UTC, as the page shows it) and title, then what the file is
 * ("AI report", a document's title) when given, then the extension.
 */
export function meetingFileName(meeting: { title: string; recordedAt: number }, extension: string, what?: string | null): string {
  const date = new Date(meeting.recordedAt).toISOString().slice(0, 10);
  const title = safeNamePart(meeting.title) || "Meeting";
  const suffix = what ? safeNamePart(what, MAX_SUFFIX) : "";
  const ext = extension.replace(/[^a-z0-9]/gi, "").slice(0, 8);
  return `${date} ${title}${suffix && suffix !== title ? ` – ${suffix}` : ""}.${ext}`;
}

/** The plain ASCII form of a name: accents dropped, dashes and quotes made plain, anything else an underscore. */
export function asciiFileName(name: string): string {
  const ascii = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019\u201A\u2032]/g, "'")
    .replace(/\u2026/g, "...")
    .replace(/[^\x20-\x7E]|["\\%]/g, "_")
    .replace(/_+/g, "_");
  return ascii.trim() || "download";
}

/** RFC 8187's value: UTF-8, every byte outside its attr-char percent-encoded. */
const extValue = (name: string) => `UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

/** A Content-Disposition header for a name made by meetingFileName (or any name: it is cleaned again). */
export function contentDisposition(disposition: "attachment" | "inline", name: string): string {
  const dot = name.lastIndexOf(".");
  const safe = dot > 0 ? `${safeNamePart(name.slice(0, dot), MAX_TITLE + MAX_SUFFIX + 20)}${name.slice(dot).replace(/[^.a-z0-9]/gi, "")}` : safeNamePart(name);
  const fileName = safe || "download";
  return `${disposition}; filename="${asciiFileName(fileName)}"; filename*=${extValue(fileName)}`;
}

/**
 * What the PDF and DOCX renderers take, and the few header helpers both share (so the two formats
 * show the same words and the same date).
 */
import { xmlSafeText } from "../../lib/xml-text.ts";

/** The fonts a render uses: DejaVu Sans's faces, and the operator's CJK font when configured. */
export interface DocumentFonts {
  regular: Uint8Array;
  bold: Uint8Array;
  italic: Uint8Array;
  boldItalic: Uint8Array;
  mono: Uint8Array;
  /** A TrueType/OpenType font (or collection) with CJK coverage; null when none is configured. */
  cjk: Uint8Array | null;
}

export interface RenderInput {
  markdown: string;
  header: {
    /** The document's title. */
    title: string;
    /** The meeting's title, shown under the document's when given and different. */
    meetingTitle?: string;
    /** When the meeting took place, an ISO date-time (RFC 3339). */
    date: string;
    participants: string[];
    /** The document's language ("fr", "de-CH", …), for the header's few words; null: English. */
    language: string | null;
  };
  fonts: DocumentFonts;
}

/**
 * The input with every text it shows made XML-safe (lib/xml-text.ts): the Markdown, the header's
 * words and what becomes the file's properties (the title). Both renderers draw only this, so no
 * character XML forbids reaches a DOCX part or a PDF, whatever the model or a client wrote.
 */
export function xmlSafeInput(input: RenderInput): RenderInput {
  const { header } = input;
  return {
    ...input,
    markdown: xmlSafeText(input.markdown),
    header: {
      title: xmlSafeText(header.title),
      ...(header.meetingTitle === undefined ? {} : { meetingTitle: xmlSafeText(header.meetingTitle) }),
      date: xmlSafeText(header.date),
      participants: header.participants.map(xmlSafeText),
      language: header.language === null ? null : xmlSafeText(header.language),
    },
  };
}

/**
 * Text that needs the CJK font: Han, Hiragana, Katakana, Hangul and Bopomofo, plus the CJK
 * punctuation and full-width forms DejaVu Sans does not draw. No `g` flag: `test` stays stateless.
 */
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\u3000-\u303f\uff00-\uffef]/u;

export interface HeaderWords {
  participants: string;
  meeting: string;
  date: string;
}

/** The header's fixed words by language (its primary subtag); English for any other. */
const HEADER_WORDS: Record<string, HeaderWords> = {
  en: { participants: "Participants", meeting: "Meeting", date: "Date" },
  fr: { participants: "Participants", meeting: "Réunion", date: "Date" },
  de: { participants: "Teilnehmende", meeting: "Besprechung", date: "Datum" },
  es: { participants: "Participantes", meeting: "Reunión", date: "Fecha" },
  it: { participants: "Partecipanti", meeting: "Riunione", date: "Data" },
  pl: { participants: "Uczestnicy", meeting: "Spotkanie", date: "Data" },
};

export function headerWords(language: string | null): HeaderWords {
  const primary = (language ?? "").split(/[-_]/)[0]!.toLowerCase();
  return HEADER_WORDS[primary] ?? HEADER_WORDS.en!;
}

/**
 * "2026-11-20 09:00 UTC" from an ISO date-time: one locale-neutral form whatever the reader's
 * language, in UTC because the service does not know the reader's time zone. A value that is not
 * a date is shown as given.
 */
export function headerDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

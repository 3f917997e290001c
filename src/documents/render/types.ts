/** The fonts a render embeds: DejaVu Sans's faces, and the operator's CJK font when configured. */
export interface DocumentFonts {
  regular: Uint8Array;
  bold: Uint8Array;
  italic: Uint8Array;
  boldItalic: Uint8Array;
  mono: Uint8Array;
  cjk: Uint8Array | null;
}

export interface RenderInput {
  markdown: string;
  header: {
    /** The document's title. */
    title: string;
    /** The meeting's title, shown under the document's when it differs. */
    meetingTitle: string;
    /** When the meeting took place, RFC 3339. */
    date: string;
    participants: string[];
    language: string | null;
  };
  fonts: DocumentFonts;
}

/** Han, Hiragana, Katakana and Hangul: text that needs the CJK font. */
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The header's fixed words in the document's language (English otherwise). */
export function headerWords(language: string | null): { participants: string; meeting: string; date: string } {
  switch ((language ?? "").slice(0, 2).toLowerCase()) {
    case "fr":
      return { participants: "Participants", meeting: "Réunion", date: "Date" };
    case "de":
      return { participants: "Teilnehmende", meeting: "Besprechung", date: "Datum" };
    case "es":
      return { participants: "Participantes", meeting: "Reunión", date: "Fecha" };
    case "it":
      return { participants: "Partecipanti", meeting: "Riunione", date: "Data" };
    case "pl":
      return { participants: "Uczestnicy", meeting: "Spotkanie", date: "Data" };
    default:
      return { participants: "Participants", meeting: "Meeting", date: "Date" };
  }
}

/** "2026-11-20 09:00 UTC" from an RFC 3339 time. */
export function headerDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

import type { TranscriptRedaction } from "../types.ts";

/**
 * The one line the text formats (txt, md, vtt) put above a redacted transcript, so a file read on
 * its own says its [PLACEHOLDERS] are not what was said: "Personal data redacted: email 1, phone 2;
 * audio silenced." Null when nothing was applied (no redaction asked, or not yet done).
 */
export function redactionNote(redaction: TranscriptRedaction | null | undefined): string | null {
  if (!redaction?.applied) return null;
  // In the order the kinds were asked for, so the line reads the same for the same request.
  const order = (kind: string) => (redaction.requested.includes(kind) ? redaction.requested.indexOf(kind) : Infinity);
  const counts = Object.entries(redaction.entities)
    .filter((entry): entry is [string, number] => typeof entry[1] === "number" && entry[1] > 0)
    .sort(([a], [b]) => order(a) - order(b))
    .map(([kind, count]) => `${kind} ${count}`);
  const what = counts.length ? counts.join(", ") : "none found";
  return `Personal data redacted: ${what}${redaction.audio ? "; audio silenced" : ""}.`;
}

import { NOT_WORD_AFTER, NOT_WORD_BEFORE, type Match } from "./match.ts";

/** A name or address's key: NFC, lower case, single spaces, no punctuation at either end. */
export function literalKey(text: string): string {
  return text
    .normalize("NFC")
    .toLowerCase()
    .replace(/\s+/gu, " ")
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, "");
}

/** A name or address to find again; `key` groups it with another form (a first name with the full name). */
export interface Literal {
  kind: "person" | "address";
  text: string;
  key?: string;
  capitalOnly?: boolean;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Every whole-word occurrence of the known names and addresses, case-insensitively, with any
 * whitespace between their words (a name may be cut across two segments). One alternation, longest
 * first, so the scan is a single pass however many literals there are.
 */
export function findLiterals(text: string, literals: Literal[]): Match[] {
  const byKey = new Map<string, { kind: "person" | "address"; key: string; capitalOnly: boolean }>();
  const sources: string[] = [];
  for (const literal of [...literals].sort((a, b) => b.text.length - a.text.length)) {
    const words = literal.text.normalize("NFC").trim().split(/\s+/u).filter(Boolean);
    if (!words.length) continue;
    const form = literalKey(words.join(" "));
    if (!form || byKey.has(form)) continue;
    byKey.set(form, { kind: literal.kind, key: literal.key ?? form, capitalOnly: literal.capitalOnly ?? false });
    sources.push(words.map(escape).join(String.raw`\s+`));
  }
  if (!sources.length) return [];
  const pattern = new RegExp(`${NOT_WORD_BEFORE}(?:${sources.join("|")})${NOT_WORD_AFTER}`, "giu");
  const found: Match[] = [];
  for (const m of text.matchAll(pattern)) {
    const entry = byKey.get(literalKey(m[0]));
    // A first or last name alone counts as written as a name, capitalized: "Will" but not "will".
    if (entry?.capitalOnly && m[0][0] === m[0][0]!.toLowerCase()) continue;
    if (entry) found.push({ kind: entry.kind, start: m.index!, end: m.index! + m[0].length, key: entry.key });
  }
  return found;
}

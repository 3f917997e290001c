import { literalKey, type Literal } from "./literals.ts";
import { NOT_WORD_AFTER, NOT_WORD_BEFORE } from "./match.ts";

/** Characters of transcript per question to the finder: well inside the report's chunk budget. */
export const FINDER_CHUNK_CHARS = 6000;
const MAX_ENTITY_CHARS = 200;
const MAX_NAME_WORDS = 6;

/** Particles that stay lower case inside a name: "Jean de la Fontaine", "Ludwig van Beethoven". */
const PARTICLES = new Set(["de", "du", "des", "la", "le", "d'", "van", "von", "der", "den", "ter", "ten", "di", "da", "del", "della", "dos", "das", "bin", "ibn", "al", "el", "y", "e", "zu"]);

/**
 * The participants' names as persons: the full name, and each first or last name alone when
 * written capitalized ("Dupont said" is Jean Dupont), all under the full name's placeholder. A part
 * two participants share is its own person: it cannot say which of them.
 */
export function participantLiterals(names: string[]): Literal[] {
  const full = [...new Set(names.map((name) => name.normalize("NFC").trim().replace(/\s+/gu, " ")).filter((name) => name.length >= 2 && name.length <= MAX_ENTITY_CHARS))];
  const owners = new Map<string, Set<string>>();
  for (const name of full) {
    for (const part of name.split(" ")) {
      if ([...part].length < 2 || PARTICLES.has(part.toLowerCase()) || !/\p{L}/u.test(part)) continue;
      const key = literalKey(part);
      const set = owners.get(key) ?? new Set<string>();
      set.add(literalKey(name));
      owners.set(key, set);
    }
  }
  const literals: Literal[] = full.map((name) => ({ kind: "person", text: name }));
  for (const name of full) {
    for (const part of name.split(" ")) {
      const set = owners.get(literalKey(part));
      if (!set || part === name) continue;
      literals.push({ kind: "person", text: part, key: set.size === 1 ? literalKey(name) : literalKey(part), capitalOnly: true });
    }
  }
  return literals;
}

/** The segments' texts packed into chunks of about FINDER_CHUNK_CHARS on segment boundaries (a longer segment cut at spaces). */
export function chunkTexts(texts: string[], budget = FINDER_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length) chunks.push(current.join("\n"));
    current = [];
    size = 0;
  };
  for (const text of texts) {
    for (const piece of cut(text, budget)) {
      if (size + piece.length > budget) flush();
      current.push(piece);
      size += piece.length + 1;
    }
  }
  flush();
  return chunks;
}

function cut(text: string, budget: number): string[] {
  if (text.length <= budget) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > budget) {
    const space = rest.lastIndexOf(" ", budget);
    const at = space > budget / 2 ? space : budget;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/**
 * The finder's answers that can be trusted to name something real: text that occurs in the chunk
 * as whole words, of a kind that was asked for, and shaped like one (a name's words capitalized, an
 * address with a number or a capitalized word). A model that writes anything else, like the random
 * development stand-in, changes nothing.
 */
export function acceptFound(answers: unknown, chunk: string, kinds: readonly ("person" | "address")[]): Literal[] {
  if (!Array.isArray(answers)) return [];
  const accepted: Literal[] = [];
  for (const answer of answers.slice(0, 500)) {
    if (!answer || typeof answer !== "object") continue;
    const { kind, text } = answer as { kind?: unknown; text?: unknown };
    if ((kind !== "person" && kind !== "address") || !kinds.includes(kind) || typeof text !== "string") continue;
    const value = text.normalize("NFC").trim().replace(/\s+/gu, " ");
    if (value.length < 2 || value.length > MAX_ENTITY_CHARS) continue;
    if (!(kind === "person" ? looksLikeName(value) : looksLikeAddress(value))) continue;
    if (!occursAsWords(chunk, value)) continue;
    accepted.push({ kind, text: value });
  }
  return accepted;
}

function looksLikeName(value: string): boolean {
  const words = value.split(" ");
  if (words.length > MAX_NAME_WORDS) return false;
  let named = 0;
  for (const word of words) {
    if (PARTICLES.has(word.toLowerCase())) continue;
    // Letters, with an apostrophe or hyphen inside (O'Brien, Jean-Luc), capitalized.
    if (!/^\p{Lu}[\p{L}\p{M}]*(?:['’-]\p{L}[\p{L}\p{M}]*)*\.?$/u.test(word)) return false;
    named += 1;
  }
  return named > 0;
}

function looksLikeAddress(value: string): boolean {
  const words = value.split(" ");
  return words.length >= 2 && words.length <= 20 && /\p{L}/u.test(value) && (/\p{N}/u.test(value) || words.some((word) => /^\p{Lu}/u.test(word)));
}

function occursAsWords(chunk: string, value: string): boolean {
  const escaped = value
    .split(" ")
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(String.raw`\s+`);
  return new RegExp(`${NOT_WORD_BEFORE}${escaped}${NOT_WORD_AFTER}`, "iu").test(chunk);
}

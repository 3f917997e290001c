import type { Match } from "./match.ts";

// Written addresses only: RFC 5321's limits (64 for the local part, 255 for the domain, 63 a label)
// bound the pattern, so a long run of letters cannot make it scan far.
const EMAIL = /(?<![\p{L}\p{N}._%+-])([A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?)@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24})(?![\p{L}\p{N}_@-])/gu;

/** Email addresses, the domain lower-cased for the key (the local part stays as written: it may be case-sensitive). */
export function findEmails(text: string): Match[] {
  const found: Match[] = [];
  for (const m of text.matchAll(EMAIL)) {
    const [whole, local, domain] = m as unknown as [string, string, string];
    if (local.includes("..") || domain.length > 255) continue;
    found.push({ kind: "email", start: m.index!, end: m.index! + whole.length, key: `${local.toLowerCase()}@${domain.toLowerCase()}` });
  }
  return found;
}

import { timingSafeEqual } from "node:crypto";

/** Whether two secrets (tokens, bearer headers) are equal, compared in constant time; a missing one never matches. */
export function sameSecret(given: string | null | undefined, expected: string | null | undefined): boolean {
  if (!given || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

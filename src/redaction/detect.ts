import { findEmails } from "./email.ts";
import { findLiterals } from "./literals.ts";
import type { Match } from "./match.ts";
import type { EntityKind, PlaceholderMap, RedactionRequest } from "./types.ts";

/** When two findings overlap, the longer wins; on a tie, the kind listed first (the more specific check). */
const PRIORITY: EntityKind[] = ["iban", "payment_card", "national_id", "date_of_birth", "phone", "email", "case_number", "address", "person"];

/** Every entity of the requested kinds in `text`: the validated recognisers, then the map's known names and addresses. */
export function detect(text: string, request: RedactionRequest, map: PlaceholderMap): Match[] {
  const wanted = new Set(request.entities);
  const found: Match[] = [];
  if (wanted.has("email")) found.push(...findEmails(text));
  const literals = map.literals.filter((literal) => wanted.has(literal.kind));
  if (literals.length) found.push(...findLiterals(text, literals));
  return resolveOverlaps(found);
}

/** Non-overlapping matches in text order: the longest first, then by PRIORITY. */
export function resolveOverlaps(matches: Match[]): Match[] {
  const ranked = [...matches].sort((a, b) => b.end - b.start - (a.end - a.start) || PRIORITY.indexOf(a.kind) - PRIORITY.indexOf(b.kind) || a.start - b.start);
  const kept: Match[] = [];
  for (const match of ranked) {
    // kept is sorted by start: find where match would go and look at both neighbours.
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid]!.start < match.start) lo = mid + 1;
      else hi = mid;
    }
    const before = kept[lo - 1];
    const after = kept[lo];
    if ((before && before.end > match.start) || (after && after.start < match.end)) continue;
    kept.splice(lo, 0, match);
  }
  return kept;
}

import { findBirthDates } from "./birth-date.ts";
import { findCards } from "./card.ts";
import { findCaseNumbers } from "./case-number.ts";
import { findEmails } from "./email.ts";
import { findIbans } from "./iban.ts";
import { findLiterals } from "./literals.ts";
import type { Match } from "./match.ts";
import { findNationalIds } from "./national-id.ts";
import { findPhones } from "./phone.ts";
import type { EntityKind, PlaceholderMap, RedactionRequest } from "./types.ts";

/** When two findings overlap, the longer wins; on a tie, the kind listed first (the more specific check). */
const PRIORITY: EntityKind[] = ["iban", "payment_card", "national_id", "date_of_birth", "phone", "email", "case_number", "address", "person"];

/** Every entity of the requested kinds in `text`: the validated recognisers, then the map's known names and addresses. */
export function detect(text: string, request: RedactionRequest, map: PlaceholderMap): Match[] {
  const wanted = new Set(request.entities);
  const found: Match[] = [];
  const language = map.language;
  if (wanted.has("email")) found.push(...findEmails(text));
  if (wanted.has("phone")) found.push(...findPhones(text, language));
  if (wanted.has("payment_card")) found.push(...findCards(text));
  if (wanted.has("iban")) found.push(...findIbans(text));
  if (wanted.has("national_id")) found.push(...findNationalIds(text, language));
  if (wanted.has("date_of_birth")) found.push(...findBirthDates(text, language));
  if (wanted.has("case_number") && request.caseNumberPattern) found.push(...findCaseNumbers(text, request.caseNumberPattern));
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

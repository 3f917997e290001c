import { luhnValid } from "./checksums.ts";
import type { Match } from "./match.ts";

/**
 * Issuer prefixes and lengths of the card schemes (Visa, Mastercard, American Express, Discover,
 * JCB, Diners Club, UnionPay, Maestro): a Luhn-valid number of another shape is one digit string in
 * ten among any numbers, so the prefix is checked too.
 */
const SCHEMES: { prefix: RegExp; lengths: number[] }[] = [
  { prefix: /^4/, lengths: [13, 16, 19] },
  { prefix: /^(?:5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/, lengths: [16] },
  { prefix: /^3[47]/, lengths: [15] },
  { prefix: /^(?:6011|64[4-9]|65)/, lengths: [16, 19] },
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 17, 18, 19] },
  { prefix: /^(?:30[0-5]|36|38|39)/, lengths: [14, 16, 19] },
  { prefix: /^62/, lengths: [16, 17, 18, 19] },
  { prefix: /^(?:50|5[6-9]|6[0-9])/, lengths: [13, 14, 15, 16, 17, 18, 19] },
];

function schemeValid(digits: string): boolean {
  return SCHEMES.some((scheme) => scheme.prefix.test(digits) && scheme.lengths.includes(digits.length));
}

/** Runs of digit groups joined by one space or dash: "4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111". */
const GROUPS = /(?<![\p{L}\p{N}.,])\d+(?:[ -]\d+)*/gu;

/**
 * Payment card numbers: 13 to 19 digits, whole groups of a run of digit groups, of a card
 * scheme's prefix and length, passing the Luhn check. Within one run (a card read out with its
 * expiry after it, say) the longest valid stretch of whole groups wins, earliest first.
 */
export function findCards(text: string): Match[] {
  const found: Match[] = [];
  for (const run of text.matchAll(GROUPS)) {
    const groups: { start: number; end: number; digits: string }[] = [];
    for (const group of run[0].matchAll(/\d+/g)) groups.push({ start: run.index! + group.index!, end: run.index! + group.index! + group[0].length, digits: group[0] });
    if (groups.reduce((n, g) => n + g.digits.length, 0) < 13) continue;
    let i = 0;
    while (i < groups.length) {
      let best: { j: number; digits: string } | null = null;
      let digits = "";
      for (let j = i; j < groups.length && digits.length + groups[j]!.digits.length <= 19; j++) {
        digits += groups[j]!.digits;
        if (digits.length >= 13 && schemeValid(digits) && luhnValid(digits)) best = { j, digits };
      }
      if (best) {
        found.push({ kind: "payment_card", start: groups[i]!.start, end: groups[best.j]!.end, key: best.digits });
        i = best.j + 1;
      } else i += 1;
    }
  }
  return found;
}

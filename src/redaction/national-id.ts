import { nhsValid, nirValid, ssnValid } from "./checksums.ts";
import type { Match } from "./match.ts";
import { findPhones } from "./phone.ts";

/** AAA-GG-SSSS, with dashes or spaces (the same separator both times). */
const SSN = /(?<![\p{L}\p{N}-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\p{L}\p{N}]|-\d)/gu;

/**
 * The NIR, whole or grouped as it is printed and read ("1 85 05 78 006 084 36"): sex, year,
 * month, department (2A/2B in Corsica), commune, order, key; any single space between groups.
 */
const NIR = /(?<![\p{L}\p{N}])[1-478] ?\d{2} ?\d{2} ?(?:\d{2}|2[ABab]) ?\d{3} ?\d{3} ?\d{2}(?![\p{L}\p{N}])/gu;

/** Ten digits, whole or as 3-3-4 with spaces or dashes. */
const NHS = /(?<![\p{L}\p{N}-])(\d{3})([- ]?)(\d{3})\2(\d{4})(?![\p{L}\p{N}]|-\d)/gu;

/** Words that say a 10-digit number is a health service number rather than a telephone number. */
const NHS_CONTEXT = /\b(?:NHS|CHI|health (?:service|care)|patient)\b/i;

/**
 * National identifiers with a check (or, for the SSN, a format with excluded ranges): US SSN,
 * French NIR, UK NHS number. Each is keyed by its digits. NHS numbers are issued in 300–799 million
 * (Northern Ireland 320–399, England and Wales 400–499 and 600–799); a ten-digit number that is also
 * a valid telephone number is taken for a phone unless a health context word precedes it closely.
 */
export function findNationalIds(text: string, language: string | null): Match[] {
  const found: Match[] = [];
  for (const m of text.matchAll(SSN)) {
    if (ssnValid(m[1]!, m[3]!, m[4]!)) found.push({ kind: "national_id", start: m.index!, end: m.index! + m[0].length, key: `ssn:${m[1]}${m[3]}${m[4]}` });
  }
  for (const m of text.matchAll(NIR)) {
    const nir = m[0].replace(/ /g, "").toUpperCase();
    if (nirValid(nir)) found.push({ kind: "national_id", start: m.index!, end: m.index! + m[0].length, key: `nir:${nir}` });
  }
  for (const m of text.matchAll(NHS)) {
    const digits = `${m[1]}${m[3]}${m[4]}`;
    const first = Number(digits.slice(0, 3));
    if (first < 320 || first >= 800 || (first >= 500 && first < 600) || !nhsValid(digits)) continue;
    const start = m.index!;
    const end = start + m[0].length;
    if (!NHS_CONTEXT.test(text.slice(Math.max(0, start - 80), start)) && findPhones(m[0], language).length) continue;
    found.push({ kind: "national_id", start, end, key: `nhs:${digits}` });
  }
  return found;
}

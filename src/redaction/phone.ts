import { findPhoneNumbersInText, type CountryCode, type PhoneNumber } from "libphonenumber-js/max";
import type { Match } from "./match.ts";

/**
 * The regions whose national numbers (written without +country code) a meeting in that language
 * is likely to mention, most likely first. Numbers in international form are found whatever the
 * language. A longer list finds more, but also takes more order numbers for phones: keep it short.
 */
const REGIONS: Record<string, CountryCode[]> = {
  en: ["US", "GB", "CA", "AU", "IE"],
  fr: ["FR", "BE", "CH", "CA"],
  de: ["DE", "AT", "CH"],
  es: ["ES", "MX", "AR"],
  it: ["IT", "CH"],
  nl: ["NL", "BE"],
  pt: ["PT", "BR"],
};
const FALLBACK: CountryCode[] = ["US", "GB", "FR"];

export function phoneRegions(language: string | null): CountryCode[] {
  return (language && REGIONS[language.toLowerCase()]) || FALLBACK;
}

/**
 * Telephone numbers, found and validated by libphonenumber-js with full metadata (a number must be
 * valid for its region's numbering plan, not merely of a plausible length), keyed by E.164.
 * Digits grouped by spaces, dots, dashes or brackets are what it reads ("06 12 34 56 78",
 * "415.555.2671", "+33 (0)6 12 34 56 78").
 */
export function findPhones(text: string, language: string | null): Match[] {
  // The library reads a comma after a number as a dialling pause that starts an extension, which
  // would swallow the next number of a list ("…0958, 415 555 2671"): a line break (same length, so
  // the offsets hold) ends a number instead.
  const scanned = text.replace(/[,;]/g, "\n");
  const bySpan = new Map<string, Match>();
  for (const region of phoneRegions(language)) {
    for (const found of findPhoneNumbersInText(scanned, { defaultCountry: region })) {
      if (!found.number.isValid() || !writtenAsDialled(scanned.slice(found.startsAt, found.endsAt), found.number)) continue;
      const span = `${found.startsAt}:${found.endsAt}`;
      // The first region that reads the digits as a valid number gives the key, so one number keeps one placeholder.
      if (!bySpan.has(span)) bySpan.set(span, { kind: "phone", start: found.startsAt, end: found.endsAt, key: found.number.number });
    }
  }
  return [...bySpan.values()];
}

/** Offsets between the digit groups of a written number ("020 7946 0958" → 3, 7). */
function boundaries(written: string): Set<number> {
  const cuts = new Set<number>();
  let digits = 0;
  let gap = false;
  for (const c of written) {
    if (c >= "0" && c <= "9") {
      if (gap && digits > 0) cuts.add(digits);
      gap = false;
      digits += 1;
    } else gap = true;
  }
  return cuts;
}

/**
 * Whether a number written without its country code is written the way one dials it in the
 * region, as libphonenumber's own "strict grouping" asks: with the national trunk prefix where the
 * region has one ("1234567890" is no British number, "01234 567890" is), and in digit groups that
 * agree with the region's (all together, or cut only where the national format cuts, or cut
 * further inside those groups: "2024 118 553" is no American number). A number written with its
 * country code (+, 00) is taken as written.
 */
function writtenAsDialled(written: string, number: PhoneNumber): boolean {
  if (/^\s*(?:\+|00)/.test(written)) return true;
  const national = number.formatNational();
  const want = national.replace(/\D/g, "");
  let digits = written.replace(/\D/g, "");
  let cuts = boundaries(written);
  // A North American number may be dialled with its leading 1 ("1-415-555-2671").
  const extra = digits.startsWith(want) ? "" : digits.startsWith(number.countryCallingCode + want) ? number.countryCallingCode : null;
  if (extra === null) return false;
  if (extra) {
    digits = digits.slice(extra.length);
    cuts = new Set([...cuts].map((cut) => cut - extra.length).filter((cut) => cut > 0));
  }
  // Digits past the number are its extension, which the library read as such.
  if (digits.length > want.length && !number.ext) return false;
  const mine = [...cuts].filter((cut) => cut < want.length);
  const theirs = boundaries(national);
  return mine.every((cut) => theirs.has(cut)) || [...theirs].every((cut) => mine.includes(cut));
}

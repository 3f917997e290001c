import { countrySpecs, isValidIBAN } from "ibantools";
import type { Match } from "./match.ts";

/** A country code and check digits, then letters and digits in groups: more than any IBAN, cut to the country's length below. */
const CANDIDATE = /(?<![\p{L}\p{N}])[A-Za-z]{2} ?\d{2}(?:[ -]?[A-Za-z0-9]){8,40}/gu;
const ALNUM = /[A-Za-z0-9]/;

/**
 * IBANs, written whole or in groups ("FR76 3000 6000 0112 3456 7890 189"): exactly the length
 * of the country's IBAN, ending at a group's end, and valid for ibantools (the country's BBAN
 * format and the mod-97 checksum). Keyed by the electronic form.
 */
export function findIbans(text: string): Match[] {
  const found: Match[] = [];
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m; m = CANDIDATE.exec(text)) {
    const start = m.index;
    const country = m[0].slice(0, 2).toUpperCase();
    const length = countrySpecs[country]?.chars;
    let electronic = "";
    let end = -1;
    if (length) {
      for (let i = 0; i < m[0].length; i++) {
        const c = m[0][i]!;
        if (!ALNUM.test(c)) continue;
        electronic += c.toUpperCase();
        if (electronic.length === length) {
          end = start + i + 1;
          break;
        }
      }
    }
    if (end > 0 && !/[\p{L}\p{N}]/u.test(text[end] ?? "") && isValidIBAN(electronic)) {
      found.push({ kind: "iban", start, end, key: electronic });
      CANDIDATE.lastIndex = end;
    } else {
      // The greedy candidate may have run over the start of a real IBAN: look again from the next character.
      CANDIDATE.lastIndex = start + 1;
    }
  }
  return found;
}

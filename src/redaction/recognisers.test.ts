/** The validated recognisers one by one: what each finds, what it must leave alone, and the keys that make one placeholder per value. */
import { describe, expect, test } from "bun:test";
import { findBirthDates } from "./birth-date.ts";
import { findCards } from "./card.ts";
import { luhnValid, nhsValid, nirValid, ssnValid } from "./checksums.ts";
import { findEmails } from "./email.ts";
import { findIbans } from "./iban.ts";
import type { Match } from "./match.ts";
import { findNationalIds } from "./national-id.ts";
import { findPhones } from "./phone.ts";

const spans = (text: string, found: Match[]) => found.map((m) => text.slice(m.start, m.end));
const keys = (found: Match[]) => found.map((m) => m.key);

describe("email", () => {
  test("written addresses, the domain's case aside; trailing punctuation stays out", () => {
    const text = "Write to Jean.Dupont@Example.COM. Or jl.bernard+cases@cabinet-bernard.co.uk, thanks.";
    const found = findEmails(text);
    expect(spans(text, found)).toEqual(["Jean.Dupont@Example.COM", "jl.bernard+cases@cabinet-bernard.co.uk"]);
    expect(keys(found)).toEqual(["jean.dupont@example.com", "jl.bernard+cases@cabinet-bernard.co.uk"]);
  });

  test("no domain, no top-level domain, or a double dot: not an address", () => {
    expect(findEmails("ping @anna, or root@localhost, or a..b@example.com, or me@example")).toEqual([]);
  });
});

describe("phone", () => {
  test("French numbers written four ways are one number (+33 6 12 34 56 78)", () => {
    const text = "au 06 12 34 56 78, au +33 6 12 34 56 78, au 06.12.34.56.78 ou 0612345678";
    const found = findPhones(text, "fr");
    expect(spans(text, found)).toEqual(["06 12 34 56 78", "+33 6 12 34 56 78", "06.12.34.56.78", "0612345678"]);
    expect(new Set(keys(found))).toEqual(new Set(["+33612345678"]));
  });

  test("American and British numbers in an English meeting; a number in a list does not swallow the next", () => {
    const text = "Call (415) 555-2671, +44 20 7946 0958, 415.555.2671 or 1-415-555-2671; the office is 020 7946 0958.";
    const found = findPhones(text, "en");
    expect(spans(text, found)).toEqual(["(415) 555-2671", "+44 20 7946 0958", "415.555.2671", "1-415-555-2671", "020 7946 0958"]);
    expect(keys(found)).toEqual(["+14155552671", "+442079460958", "+14155552671", "+14155552671", "+442079460958"]);
  });

  test("numbers that are no valid number as written: no trunk prefix, odd grouping, too short, order numbers", () => {
    for (const text of ["order 1234567890", "prescription 2024 118 553", "ref 666-12-3456", "06 12 34 56", "invoice 20240315", "le montant est de 1 250 000 euros"]) {
      expect({ text, found: spans(text, findPhones(text, text.includes("euros") ? "fr" : "en")) }).toEqual({ text, found: [] });
    }
  });

  test("the meeting's language picks the regions of numbers written without a country code", () => {
    expect(findPhones("06 12 34 56 78", "en")).toEqual([]);
    expect(keys(findPhones("06 12 34 56 78", "fr"))).toEqual(["+33612345678"]);
    expect(keys(findPhones("+33 6 12 34 56 78", "en"))).toEqual(["+33612345678"]);
  });
});

describe("payment card", () => {
  test("Luhn-valid numbers of a card scheme, grouped or not; the key is the digits", () => {
    const text = "Visa 4111 1111 1111 1111, Mastercard 5555-5555-5555-4444, Amex 378282246310005.";
    const found = findCards(text);
    expect(spans(text, found)).toEqual(["4111 1111 1111 1111", "5555-5555-5555-4444", "378282246310005"]);
    expect(keys(found)).toEqual(["4111111111111111", "5555555555554444", "378282246310005"]);
  });

  test("a card read out with what follows it: only the card's groups", () => {
    const text = "it's 4111 1111 1111 1111 12 27";
    expect(spans(text, findCards(text))).toEqual(["4111 1111 1111 1111"]);
  });

  test("failing Luhn, no scheme's prefix or length, a SIRET, an amount: not a card", () => {
    expect(luhnValid("4111111111111112")).toBe(false);
    for (const text of ["4111 1111 1111 1112", "tracking 9400 1000 0000 0000 0000 00", "SIRET 552 100 554 00025", "1,234,567,890,123,456", "12345678901234"]) {
      expect({ text, found: findCards(text) }).toEqual({ text, found: [] });
    }
  });
});

describe("IBAN", () => {
  test("grouped or whole, any case, keyed by the electronic form; it ends at the country's length", () => {
    const text = "IBAN FR76 3000 6000 0112 3456 7890 189 and then gb82 west 1234 5698 7654 32, or DE89370400440532013000.";
    const found = findIbans(text);
    expect(spans(text, found)).toEqual(["FR76 3000 6000 0112 3456 7890 189", "gb82 west 1234 5698 7654 32", "DE89370400440532013000"]);
    expect(keys(found)).toEqual(["FR7630006000011234567890189", "GB82WEST12345698765432", "DE89370400440532013000"]);
  });

  test("a bad checksum, a cut inside a group, an unknown country: not an IBAN", () => {
    for (const text of ["FR76 3000 6000 0112 3456 7890 188", "FR76 3000 6000 0112 3456 7890 1899", "ZZ76 3000 6000 0112 3456 7890 189", "BE68 5390 0754 7035"]) {
      expect({ text, found: findIbans(text) }).toEqual({ text, found: [] });
    }
  });

  test("a failed candidate does not hide a real IBAN right after it", () => {
    const text = "AB12 xyz FR7630006000011234567890189";
    expect(spans(text, findIbans(text))).toEqual(["FR7630006000011234567890189"]);
  });
});

describe("national identifiers", () => {
  test("the check algorithms", () => {
    expect(nirValid("185057800608491")).toBe(true);
    expect(nirValid("185057800608492")).toBe(false);
    expect(nirValid("285022A01234578")).toBe(true);
    expect(nirValid("285022B01234578")).toBe(false);
    expect(nirValid("985057800608491")).toBe(false);
    expect(nhsValid("4010234563")).toBe(true);
    expect(nhsValid("4010234564")).toBe(false);
    expect(ssnValid("123", "45", "6789")).toBe(true);
    for (const [a, g, s] of [["000", "12", "3456"], ["666", "12", "3456"], ["912", "12", "3456"], ["123", "00", "3456"], ["123", "45", "0000"], ["078", "05", "1120"]]) {
      expect(ssnValid(a!, g!, s!)).toBe(false);
    }
  });

  test("SSN, NIR (grouped, Corsican) and NHS numbers in text, keyed by scheme and digits", () => {
    const text = "SSN 123-45-6789, NIR 1 85 05 78 006 084 91 and 2 85 02 2A 012 345 78, NHS number 401 023 4563.";
    const found = findNationalIds(text, "en");
    expect(spans(text, found)).toEqual(["123-45-6789", "1 85 05 78 006 084 91", "2 85 02 2A 012 345 78", "401 023 4563"]);
    expect(keys(found)).toEqual(["ssn:123456789", "nir:185057800608491", "nir:285022A01234578", "nhs:4010234563"]);
  });

  test("invalid ranges, wrong keys, mixed separators, numbers inside longer ones: none", () => {
    for (const text of ["666-12-3456", "123-45 6789", "1 85 05 78 006 084 92", "NHS 401 023 4564", "9434765919", "12-123-45-6789", "4010234563-1"]) {
      expect({ text, found: findNationalIds(text, "en") }).toEqual({ text, found: [] });
    }
  });

  test("a ten-digit number that is a valid phone number is an NHS number only after a health word", () => {
    // 415 555 2671 passes the NHS check and is a valid American number.
    expect(nhsValid("4155552671")).toBe(true);
    expect(findNationalIds("call me on 415 555 2671", "en")).toEqual([]);
    expect(keys(findNationalIds("her NHS number is 415 555 2671", "en"))).toEqual(["nhs:4155552671"]);
  });
});

describe("date of birth", () => {
  test("a date right after a birth phrase, in English and French, keyed as ISO", () => {
    const cases: [string, string, string, string | null][] = [
      ["I was born on 3 July 1975.", "3 July 1975", "1975-07-03", "en"],
      ["Her date of birth is 14 February 1948", "14 February 1948", "1948-02-14", "en"],
      ["DOB: 22/09/1979", "22/09/1979", "1979-09-22", "en"],
      ["born on the 4th of June 1961", "4th of June 1961", "1961-06-04", "en"],
      ["My date of birth is March 3, 1982, if you need it", "March 3, 1982", "1982-03-03", "en"],
      ["date of birth 1982-03-03", "1982-03-03", "1982-03-03", "en"],
      ["Vous êtes né le 14 juin 1969 ?", "14 juin 1969", "1969-06-14", "fr"],
      ["Elle est née le 1er mars 2015.", "1er mars 2015", "2015-03-01", "fr"],
      ["sa date de naissance est le 02/03/1985", "02/03/1985", "1985-03-02", "fr"],
      ["date de naissance : 17.09.1971", "17.09.1971", "1971-09-17", "fr"],
      // The phrase after the date.
      ["12/08/1978, c'est ma date de naissance.", "12/08/1978", "1978-08-12", "fr"],
      ["3 July 1975 is his date of birth", "3 July 1975", "1975-07-03", "en"],
    ];
    for (const [text, span, key, language] of cases) {
      const found = findBirthDates(text, language);
      expect({ text, spans: spans(text, found), keys: keys(found) }).toEqual({ text, spans: [span], keys: [key] });
    }
  });

  test("a numeric date reads day first, month first in English when both could be months", () => {
    expect(keys(findBirthDates("DOB 03/04/1990", "en"))).toEqual(["1990-03-04"]);
    expect(keys(findBirthDates("né le 03/04/1990", "fr"))).toEqual(["1990-04-03"]);
    expect(keys(findBirthDates("DOB 04/23/1990", "en"))).toEqual(["1990-04-23"]);
  });

  test("a date without a birth phrase just before it is not a birth date", () => {
    for (const text of ["The hearing is on 12 March 2025.", "L'audience est fixée au 14 juillet 2025.", "born in 1985", "I was born in Leeds and the hearing is on 12 March 2025", "DOB 12/03/19850", "born on 45 March 1985", "12 March 2025 is the date of the hearing, not a birth date"]) {
      expect({ text, found: findBirthDates(text, "en") }).toEqual({ text, found: [] });
    }
  });
});

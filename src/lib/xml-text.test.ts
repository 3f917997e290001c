// xmlSafeText over random Unicode (controls, NUL, lone surrogates, U+FFFE/U+FFFF, astral
// characters): a strict XML parser (xmllint) accepts every output as element content, the output
// holds only XML 1.0's Char production, and nothing XML allows is lost.
import { describe, expect, test } from "bun:test";
import { randomUnicode, seededRandom } from "../../test/support/random-unicode.ts";
import { asElementText, xmlErrors } from "../../test/support/strict-xml.ts";
import { xmlSafeText } from "./xml-text.ts";

/** XML 1.0's Char production (section 2.2), written out here rather than taken from the code under test. */
function onlyXmlChars(text: string): boolean {
  for (const char of text) {
    const c = char.codePointAt(0)!;
    const allowed = c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    if (!allowed) return false;
  }
  return true;
}

describe("xmlSafeText", () => {
  test("random Unicode: xmllint accepts every output, which holds only XML characters and is stable", async () => {
    const seed = Date.now();
    const random = seededRandom(seed);
    const samples = Array.from({ length: 500 }, () => randomUnicode(random, 60));
    const outputs = samples.map(xmlSafeText);
    const document = `<samples seed="${seed}">\n${outputs.map((out) => `<s>${asElementText(out)}</s>`).join("\n")}\n</samples>\n`;
    expect(await xmlErrors(document)).toBe("");
    outputs.forEach((out, i) => {
      if (!onlyXmlChars(out)) throw new Error(`seed ${seed}, sample ${i}: ${JSON.stringify(samples[i])} kept a forbidden character`);
      expect(xmlSafeText(out)).toBe(out);
    });
    // The same samples unsanitized: the parser does refuse them (the check is not blind).
    expect(await xmlErrors(`<samples>${samples.map((s) => `<s>${asElementText(s)}</s>`).join("")}</samples>`)).not.toBe("");
  });

  test("what XML allows is kept as it is; controls and noncharacters go, a lone surrogate shows as U+FFFD", () => {
    const allowed = "tab\there\nline\r\nréunion Łódź 会议 😀 𠮷 \u{10FFFF} \uFFFD \u007F\u0085 \uE000";
    expect(xmlSafeText(allowed)).toBe(allowed);
    expect(xmlSafeText("a\u0000b\u0001c\u0008d\u000Be\u000Cf\u000Eg\u001Fh\uFFFEi\uFFFFj")).toBe("abcdefghij");
    expect(xmlSafeText("high \uD83D alone, low \uDE00 alone, pair \uD83D\uDE00")).toBe("high \uFFFD alone, low \uFFFD alone, pair 😀");
  });
});

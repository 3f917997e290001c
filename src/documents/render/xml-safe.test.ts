// Documents render whatever text they get (issue 20, item 7): random Unicode (controls, NUL, lone
// surrogates, U+FFFE/U+FFFF, astral characters, Markdown syntax) in the Markdown and in every
// header field. Every XML part of the DOCX (word/document.xml, docProps/core.xml, the relations…)
// passes a strict parser, xmllint; the PDF's title and text carry no character XML forbids.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUnicode, seededRandom } from "../../../test/support/random-unicode.ts";
import { asElementText, docxPartErrors, xmlErrors } from "../../../test/support/strict-xml.ts";
import { renderDocx } from "./docx.ts";
import { loadDocumentFonts } from "./fonts.ts";
import { renderPdf } from "./pdf.ts";
import type { RenderInput } from "./types.ts";
import { runCommand } from "../../../test/support/run-command.ts";

const CONTROLS = "\u0001 \u0008 \u0000 \u000B \u000C \u001F \uFFFE \uFFFF \uD800 \uDC00";

function randomInput(random: () => number): Omit<RenderInput, "fonts"> {
  return {
    markdown: `# ${randomUnicode(random, 8)}\n\n${randomUnicode(random, 80)}\n\n- ${randomUnicode(random, 10)}\n\n[${randomUnicode(random, 5)}](https://example.org/${randomUnicode(random, 5)})\n`,
    header: {
      title: `${randomUnicode(random, 10)}${CONTROLS}`,
      meetingTitle: randomUnicode(random, 10),
      date: "2026-11-20T09:00:00Z",
      participants: [randomUnicode(random, 6), `Ana ${CONTROLS}`],
      language: "fr",
    },
  };
}

describe("documents with characters XML forbids", async () => {
  const fonts = await loadDocumentFonts({});

  test("DOCX: every XML part of 25 documents of random Unicode passes xmllint", async () => {
    const seed = Date.now();
    const random = seededRandom(seed);
    for (let i = 0; i < 25; i++) {
      const input = randomInput(random);
      const parts = await docxPartErrors(await renderDocx({ ...input, fonts }));
      expect(Object.keys(parts)).toContain("word/document.xml");
      expect(Object.keys(parts)).toContain("docProps/core.xml");
      const failed = Object.entries(parts).filter(([, errors]) => errors);
      if (failed.length) throw new Error(`seed ${seed}, document ${i} (${JSON.stringify(input)}): ${failed.map(([part, errors]) => `${part}: ${errors}`).join("\n")}`);
    }
  }, 120_000);

  test("PDF: the title in its properties and the text drawn hold only XML characters", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "verbatim-xml-safe-pdf-"));
    try {
      const seed = Date.now();
      const random = seededRandom(seed);
      for (let i = 0; i < 5; i++) {
        const input = randomInput(random);
        const path = join(scratch, `${i}.pdf`);
        writeFileSync(path, await renderPdf({ ...input, fonts }));
        const title = (await runCommand(["pdfinfo", "-enc", "UTF-8", path])).match(/^Title:\s*(.*)$/m)?.[1] ?? "";
        const text = await runCommand(["pdftotext", "-nopgbrk", "-enc", "UTF-8", path, "-"]);
        expect(title.length).toBeGreaterThan(0);
        expect(await xmlErrors(`<pdf seed="${seed}"><title>${asElementText(title)}</title><text>${asElementText(text)}</text></pdf>`)).toBe("");
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 120_000);
});

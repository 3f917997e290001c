// PDF renders, read back with poppler (pdftotext, pdfinfo, pdffonts): the header, the blocks and
// the accents of French, German, Polish and Greek intact; only the embedded fonts used; the CJK
// font only for CJK characters; about ten pages numbered n / N.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { longMarkdown } from "../../../test/support/long-document.ts";
import { loadDocumentFonts } from "./fonts.ts";
import { renderPdf } from "./pdf.ts";
import type { RenderInput } from "./types.ts";
import { runCommand } from "../../../test/support/run-command.ts";

const scratch = mkdtempSync(join(tmpdir(), "verbatim-pdf-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Another face of the package, standing in for a CJK font: its name shows where it was used. */
const STAND_IN_CJK = join(import.meta.dir, "../../../node_modules/dejavu-fonts-ttf/ttf/DejaVuSerif.ttf");
/** Debian's fonts-noto-cjk, when the machine has it: a real CJK collection. */
const NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";

const WORDS = ["Réunion de coordination — décisions prises", "Élodie", "ça", "œuvre", "Größe", "Straße", "Übermäßig", "Łódź", "źdźbło", "zażółć", "gęślą", "jaźń", "Ωμέγα", "αβγ"];
const MARKDOWN = `# Réunion de coordination — décisions prises

Élodie a présenté **ça** et _œuvre_ ; Größe, Straße, Übermäßig ; Łódź, źdźbło, zażółć gęślą jaźń ; Ωμέγα αβγ.

## Décisions

1. Valider le budget
2. Relancer le client
   - sous-point imbriqué
   - [x] tâche faite
   - [ ] tâche ouverte

| Action | Responsable |
|---|---|
| Rédiger la note | Élodie |

> Une citation à retenir

\`\`\`
if (ok) {
    garder l'indentation
}
\`\`\`

<b>balise</b> affichée telle quelle, [un lien](https://example.org/doc) et [un piège](javascript:alert(1)).
`;
const header: RenderInput["header"] = {
  title: "Note de synthèse",
  meetingTitle: "Comité de pilotage",
  date: "2026-11-20T09:00:00Z",
  participants: ["Élodie Müller", "Łukasz Żółć"],
  language: "fr",
};

/** The PDF written to the scratch folder, and what poppler reads in it. */
async function read(bytes: Uint8Array, name: string): Promise<{ text: string; info: string; fonts: string[]; raw: string }> {
  const path = join(scratch, name);
  writeFileSync(path, bytes);
  const [text, info, fontList] = await Promise.all([runCommand(["pdftotext", "-layout", path, "-"]), runCommand(["pdfinfo", path]), runCommand(["pdffonts", path])]);
  // pdffonts: two header lines, then one font a line, its name first ("ABCDEF+DejaVuSans").
  const fonts = fontList.trim().split("\n").slice(2).map((line) => line.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ""));
  return { text, info, fonts, raw: Buffer.from(bytes).toString("latin1") };
}

describe("renderPdf", async () => {
  const fonts = await loadDocumentFonts({});

  test("header, headings, lists, table, quote, code and every accent, as pdftotext reads them", async () => {
    const bytes = await renderPdf({ markdown: MARKDOWN, header, fonts });
    expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
    const { text, info } = await read(bytes, "doc.pdf");
    for (const expected of [
      "Note de synthèse",
      "Réunion: Comité de pilotage",
      "Date: 2026-11-20 09:00 UTC",
      "Participants: Élodie Müller, Łukasz Żółć",
      "Décisions",
      "1. Valider le budget",
      "2. Relancer le client",
      "sous-point imbriqué",
      "☑",
      "tâche faite",
      "☐",
      "Rédiger la note",
      "Responsable",
      "Une citation à retenir",
      "    garder l'indentation",
      "<b>balise</b> affichée telle quelle",
      ...WORDS,
    ]) {
      expect(text).toContain(expected);
    }
    expect(info).toMatch(/^Title:\s+Note de synthèse$/m);
    expect(info).toMatch(/^Pages:\s+1$/m);
    expect(text).toMatch(/\b1\s*\/\s*1\b/);
  });

  test("the header's words follow the document's language, English otherwise", async () => {
    const german = await read(await renderPdf({ markdown: "Text", header: { ...header, language: "de-AT" }, fonts }), "de.pdf");
    expect(german.text).toContain("Teilnehmende: Élodie Müller, Łukasz Żółć");
    const other = await read(await renderPdf({ markdown: "Text", header: { ...header, language: null, participants: [] }, fonts }), "en.pdf");
    expect(other.text).toContain("Date: 2026-11-20 09:00 UTC");
    expect(other.text).not.toContain("Participants");
  });

  test("only the embedded DejaVu faces are used (never pdfkit's Helvetica); links only to http(s)", async () => {
    const { fonts: used, raw } = await read(await renderPdf({ markdown: MARKDOWN, header, fonts }), "fonts.pdf");
    expect(used.sort()).toEqual(["DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique", "DejaVuSansMono"]);
    expect(raw).toContain("/URI (https://example.org/doc)");
    expect(raw).not.toContain("javascript");
    expect(raw).not.toContain("dejavu-fonts-ttf"); // no server path in the file
  });

  test("with a CJK font, only CJK characters take it; without one, nothing does", async () => {
    const markdown = "Réunion Łódź 会议纪要 한국어 Ωμέγα";
    const withCjk = await read(await renderPdf({ markdown, header, fonts: await loadDocumentFonts({ cjkFontPath: STAND_IN_CJK }) }), "cjk.pdf");
    expect(withCjk.fonts).toContain("DejaVuSerif");
    expect(withCjk.fonts).toContain("DejaVuSans"); // the Latin and Greek around the CJK text
    expect(withCjk.raw).not.toContain(STAND_IN_CJK);
    const latinOnly = await read(await renderPdf({ markdown: "Réunion Łódź", header, fonts: await loadDocumentFonts({ cjkFontPath: STAND_IN_CJK }) }), "latin.pdf");
    expect(latinOnly.fonts).not.toContain("DejaVuSerif");
    const without = await read(await renderPdf({ markdown, header, fonts }), "no-cjk.pdf");
    expect(without.fonts).not.toContain("DejaVuSerif");
  });

  // setup installs Debian's fonts-noto-cjk; without it this test fails rather than skip unseen.
  test("a Noto Sans CJK collection (.ttc) draws Chinese, Japanese and Korean", async () => {
    if (!existsSync(NOTO_CJK)) throw new Error(`${NOTO_CJK} is missing: install Debian's fonts-noto-cjk (npm run setup does)`);
    const cjkFonts = await loadDocumentFonts({ cjkFontPath: NOTO_CJK });
    const { text, fonts: used } = await read(await renderPdf({ markdown: "# 会议纪要\n\n決定：日本語のテキスト、한국어 텍스트, Łódź.", header, fonts: cjkFonts }), "noto.pdf");
    for (const expected of ["会议纪要", "日本語のテキスト", "한국어 텍스트", "Łódź"]) expect(text).toContain(expected);
    expect(used.some((name) => name.startsWith("NotoSansCJK"))).toBe(true);
  });

  test("a long document flows over about ten pages, numbered n / N, the last section on the last page", async () => {
    const { text, info } = await read(await renderPdf({ markdown: longMarkdown(), header, fonts }), "long.pdf");
    const pages = Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(8);
    expect(text).toMatch(new RegExp(`\\b${pages}\\s*/\\s*${pages}\\b`));
    const lastPage = text.split("\f").filter((page) => page.trim()).at(-1)!;
    expect(lastPage).toContain("Section 30 : décisions et échéances");
    // A table split by a page break starts again under its header row: no page opens on a bare row.
    const firstLines = text.split("\f").map((page) => page.split("\n").find((line) => line.trim())?.trim() ?? "");
    expect(firstLines.filter((line) => /^(Note|Suivi) \d+/.test(line))).toEqual([]);
  });

  test("odd input still renders whole: empty Markdown, a table cell longer than a page, deep nesting, an endless word", async () => {
    const empty = await read(await renderPdf({ markdown: "", header: { ...header, date: "not a date" }, fonts }), "empty.pdf");
    expect(empty.text).toContain("Date: not a date");
    const markdown = [
      "| A | B |\n|---|---|\n| " + "mot ".repeat(2500) + "fin-de-cellule | voisine |\n| après | dernière |",
      Array.from({ length: 12 }, (_, depth) => `${"  ".repeat(depth)}- niveau ${depth}`).join("\n"),
      "z".repeat(400),
    ].join("\n\n");
    const { text, info } = await read(await renderPdf({ markdown, header, fonts }), "odd.pdf");
    for (const expected of ["fin-de-cellule", "B: voisine", "après", "dernière", "niveau 0", "niveau 11", "zzzzzzzzzz"]) expect(text).toContain(expected);
    expect(Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1])).toBeLessThanOrEqual(4);
  });
});

describe("loadDocumentFonts", () => {
  test("reads the faces once per CJK font", async () => {
    const first = await loadDocumentFonts({ cjkFontPath: null });
    expect(await loadDocumentFonts({})).toBe(first);
    expect(first.cjk).toBeNull();
    for (const face of [first.regular, first.bold, first.italic, first.boldItalic, first.mono]) expect(face.byteLength).toBeGreaterThan(100_000);
  });

  test("a missing or unreadable CJK font is an error naming the option", async () => {
    const missing = join(scratch, "missing.otf");
    await expect(loadDocumentFonts({ cjkFontPath: missing })).rejects.toThrow(`--cjk-font (VERBATIM_CJK_FONT): cannot read the CJK font file ${missing} (ENOENT)`);
    const notAFont = join(scratch, "not-a-font.ttf");
    writeFileSync(notAFont, "just text, not a font");
    await expect(loadDocumentFonts({ cjkFontPath: notAFont })).rejects.toThrow("--cjk-font (VERBATIM_CJK_FONT):");
    await expect(loadDocumentFonts({ cjkFontPath: notAFont })).rejects.toThrow("is not a TrueType/OpenType font");
  });
});

// DOCX renders, read back with unzip: the text of word/document.xml (tags stripped, entities
// decoded) holds the header, the blocks and the accents of French, German, Polish and Greek;
// headings are in Word's heading styles; fonts are named, never embedded.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeXML } from "entities";
import { longMarkdown } from "../../../test/support/long-document.ts";
import { renderDocx } from "./docx.ts";
import { loadDocumentFonts } from "./fonts.ts";
import type { RenderInput } from "./types.ts";
import { runCommand } from "../../../test/support/run-command.ts";

const scratch = mkdtempSync(join(tmpdir(), "verbatim-docx-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Another face of the package, standing in for a CJK font: its family name shows where it is named. */
const STAND_IN_CJK = join(import.meta.dir, "../../../node_modules/dejavu-fonts-ttf/ttf/DejaVuSerif.ttf");

const WORDS = ["Réunion de coordination — décisions prises", "Élodie", "ça", "œuvre", "Größe", "Straße", "Übermäßig", "Łódź", "źdźbło", "zażółć gęślą jaźń", "Ωμέγα", "αβγ"];
const MARKDOWN = `# Réunion de coordination — décisions prises

Élodie a présenté **ça** et _œuvre_ ; Größe, Straße, Übermäßig ; Łódź, źdźbło, zażółć gęślą jaźń ; Ωμέγα αβγ.

## Décisions

3. Valider le budget
4. Relancer le client
   - sous-point imbriqué
   - [x] tâche faite
   - [ ] tâche ouverte

| Action | Responsable |
|---|---:|
| Rédiger la note | Élodie |

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

/** The DOCX's parts, by name: unzip -p for each asked, unzip -Z1 for the list. */
async function read(bytes: Uint8Array, name: string, parts: string[]): Promise<{ entries: string[]; xml: Record<string, string>; text: string }> {
  const path = join(scratch, name);
  writeFileSync(path, bytes);
  const entries = (await runCommand(["unzip", "-Z1", path])).trim().split("\n");
  const xml: Record<string, string> = {};
  for (const part of ["word/document.xml", ...parts]) xml[part] = await runCommand(["unzip", "-p", path, part]);
  // Paragraphs on lines of their own, then the tags out and the entities decoded: the text a reader sees.
  const text = decodeXML(xml["word/document.xml"]!.replace(/<\/w:p>/g, "\n").replace(/<[^>]+>/g, ""));
  return { entries, xml, text };
}

describe("renderDocx", async () => {
  const fonts = await loadDocumentFonts({});

  test("header, headings, lists, table, code and every accent in word/document.xml", async () => {
    const bytes = await renderDocx({ markdown: MARKDOWN, header, fonts });
    expect(Buffer.from(bytes.subarray(0, 4)).toString("latin1")).toBe("PK\x03\x04");
    const { xml, text } = await read(bytes, "doc.docx", []);
    for (const expected of [
      "Note de synthèse",
      "Réunion: Comité de pilotage",
      "Date: 2026-11-20 09:00 UTC",
      "Participants: Élodie Müller, Łukasz Żółć",
      "Décisions",
      "Valider le budget",
      "sous-point imbriqué",
      "☑ tâche faite",
      "☐ tâche ouverte",
      "Rédiger la note",
      "Responsable",
      "    garder l'indentation",
      "<b>balise</b> affichée telle quelle",
      ...WORDS,
    ]) {
      expect(text).toContain(expected);
    }
    const document = xml["word/document.xml"]!;
    expect(document).toContain('<w:pStyle w:val="Title"/>');
    expect(document).toMatch(/<w:pStyle w:val="Heading1"\/>.*?Réunion de coordination/);
    expect(document).toMatch(/<w:pStyle w:val="Heading2"\/>.*?Décisions/);
    expect(document).toContain("<w:tbl>");
    expect(document).toContain('<w:tblHeader/>');
    expect(document).toMatch(/<w:jc w:val="right"\/>.*?Élodie/); // the column aligned right
    expect(document).toMatch(/<w:b\/>.*?ça/);
    expect(document).toMatch(/<w:i\/>.*?œuvre/);
    expect(document).toMatch(/<w:shd w:fill="F2F2F2"[^>]*\/>.*?w:ascii="DejaVu Sans Mono".*?garder l&apos;indentation/);
    expect(document).not.toContain('w:val="false"'); // no explicit "not bold" overriding the styles
  });

  test("core properties, numbering from the list's own start, bullets, links only to http(s)", async () => {
    const { xml } = await read(await renderDocx({ markdown: MARKDOWN, header, fonts }), "parts.docx", ["docProps/core.xml", "word/numbering.xml", "word/_rels/document.xml.rels"]);
    expect(xml["docProps/core.xml"]).toContain("<dc:title>Note de synthèse</dc:title>");
    expect(xml["docProps/core.xml"]).toContain("<dc:creator>Verbatim</dc:creator>");
    expect(xml["word/numbering.xml"]).toMatch(/<w:start w:val="3"\/><w:numFmt w:val="decimal"\/>/);
    expect(xml["word/numbering.xml"]).toContain('<w:numFmt w:val="bullet"/>');
    expect(xml["word/document.xml"]).toContain("<w:numPr>");
    expect(xml["word/_rels/document.xml.rels"]).toContain('Target="https://example.org/doc"');
    expect(xml["word/_rels/document.xml.rels"]).not.toContain("javascript");
  });

  test("fonts are named, not embedded: DejaVu Sans, and the CJK font's family for East Asian text when configured", async () => {
    const plain = await read(await renderDocx({ markdown: "会议 Łódź", header, fonts }), "fonts.docx", ["word/styles.xml"]);
    expect(plain.xml["word/styles.xml"]).toContain('<w:rFonts w:ascii="DejaVu Sans" w:cs="DejaVu Sans" w:hAnsi="DejaVu Sans"/>');
    expect(plain.entries.filter((entry) => entry.startsWith("word/fonts/") || /\.(ttf|otf|odttf)$/.test(entry))).toEqual([]);
    expect(plain.text).toContain("会议 Łódź");
    const cjk = await read(await renderDocx({ markdown: "会议 Łódź", header, fonts: await loadDocumentFonts({ cjkFontPath: STAND_IN_CJK }) }), "cjk.docx", ["word/styles.xml"]);
    expect(cjk.xml["word/styles.xml"]).toContain('w:eastAsia="DejaVu Serif"');
    expect(cjk.entries.filter((entry) => entry.startsWith("word/fonts/"))).toEqual([]);
  });

  test("a long document (about ten PDF pages) renders whole, its headings in heading styles", async () => {
    const { xml, text } = await read(await renderDocx({ markdown: longMarkdown(), header, fonts }), "long.docx", []);
    expect(text).toContain("Section 1 : décisions et échéances");
    expect(text).toContain("Section 30 : décisions et échéances");
    expect(xml["word/document.xml"]!.match(/<w:pStyle w:val="Heading2"\/>/g)?.length).toBe(30);
    expect(xml["word/document.xml"]!.match(/<w:tbl>/g)?.length).toBe(30);
  });
});

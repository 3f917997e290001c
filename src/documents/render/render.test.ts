// PDF (checked with pdftotext) and DOCX (its word/document.xml) renders of one document: header,
// headings, lists, tables and the accents of French, German, Polish and Greek, intact.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeXML } from "entities";
import { renderDocx } from "./docx.ts";
import { loadDocumentFonts } from "./fonts.ts";
import { renderPdf } from "./pdf.ts";
import type { RenderInput } from "./types.ts";
import { longMarkdown } from "../../../test/support/long-document.ts";

const scratch = mkdtempSync(join(tmpdir(), "verbatim-render-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const WORDS = ["Réunion de coordination — décisions prises", "Élodie", "ça", "œuvre", "Größe", "Straße", "Łódź", "źdźbło", "zażółć gęślą jaźń", "Ωμέγα", "αβγ"];
const MARKDOWN = [
  "# Réunion de coordination — décisions prises",
  "",
  "Élodie a présenté **ça** et _œuvre_ ; Größe, Straße ; Łódź, źdźbło, zażółć gęślą jaźń ; Ωμέγα αβγ.",
  "",
  "## Décisions",
  "",
  "1. Valider le budget",
  "2. Relancer le client",
  "   - sous-point",
  "",
  "| Action | Responsable |",
  "|---|---|",
  "| Rédiger la note | Élodie |",
  "",
].join("\n");
const header: RenderInput["header"] = {
  title: "Note de synthèse",
  meetingTitle: "Comité de pilotage",
  date: "2026-11-20T09:00:00Z",
  participants: ["Élodie Müller", "Łukasz Żółć"],
  language: "fr",
};

async function run(command: string[]): Promise<string> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command[0]} failed`);
  return out;
}

async function pdfText(bytes: Uint8Array, name: string): Promise<string> {
  const path = join(scratch, name);
  writeFileSync(path, bytes);
  return run(["pdftotext", "-layout", path, "-"]);
}

async function docxText(bytes: Uint8Array, name: string): Promise<{ xml: string; text: string }> {
  const path = join(scratch, name);
  writeFileSync(path, bytes);
  const xml = await run(["unzip", "-p", path, "word/document.xml"]);
  return { xml, text: decodeXML(xml.replace(/<[^>]+>/g, "")) };
}

describe("renders", async () => {
  const fonts = await loadDocumentFonts({ cjkFontPath: null });

  test("PDF: header, headings, list items, table cells and every accent, as pdftotext reads them", async () => {
    const bytes = await renderPdf({ markdown: MARKDOWN, header, fonts });
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const text = await pdfText(bytes, "doc.pdf");
    for (const expected of ["Note de synthèse", "Réunion: Comité de pilotage", "Date: 2026-11-20 09:00 UTC", "Participants: Élodie Müller, Łukasz Żółć", "Décisions", "Valider le budget", "sous-point", "Rédiger la note", "Responsable", ...WORDS]) {
      expect(text).toContain(expected);
    }
  });

  test("DOCX: the same text in word/document.xml, headings in heading styles, the title as Title", async () => {
    const bytes = await renderDocx({ markdown: MARKDOWN, header, fonts });
    expect(bytes.slice(0, 2)).toEqual(new Uint8Array([0x50, 0x4b]));
    const { xml, text } = await docxText(bytes, "doc.docx");
    for (const expected of ["Note de synthèse", "Comité de pilotage", "Élodie Müller, Łukasz Żółć", "Décisions", "Valider le budget", "Rédiger la note", ...WORDS]) {
      expect(text).toContain(expected);
    }
    expect(xml).toContain('<w:pStyle w:val="Title"/>');
    expect(xml).toContain('<w:pStyle w:val="Heading1"/>');
    expect(xml).toContain('<w:pStyle w:val="Heading2"/>');
    expect(xml).toContain("<w:tbl>");
    expect(xml).toContain("<w:b/>");
  });

  test("a long document flows over pages (about ten), numbered n / N, in both formats", async () => {
    const markdown = longMarkdown();
    const pdf = await renderPdf({ markdown, header, fonts });
    const path = join(scratch, "long.pdf");
    writeFileSync(path, pdf);
    const pages = Number(/Pages:\s+(\d+)/.exec(await run(["pdfinfo", path]))?.[1]);
    expect(pages).toBeGreaterThanOrEqual(9);
    const text = await run(["pdftotext", "-layout", path, "-"]);
    expect(text).toMatch(new RegExp(`\\b${pages}\\s*/\\s*${pages}\\b`));
    expect(text).toContain("Section 30 : décisions et échéances");
    const { text: docText } = await docxText(await renderDocx({ markdown, header, fonts }), "long.docx");
    expect(docText).toContain("Section 30 : décisions et échéances");
  });
});

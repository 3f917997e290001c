/**
 * PDF and DOCX render times of a generated document of about ten pages (target: under 300 ms
 * each). The document is the render tests' (test/support/long-document.ts): sections of accented
 * paragraphs, nested lists and a table each. Each figure is the median of 7 renders after one
 * warm-up (fonts read, pdfkit's and docx's code compiled). Page count from pdfinfo when poppler is
 * installed, else from the PDF's page objects.
 *
 *   bun bench/documents-render.ts [--sections 30] [--cjk-font /path/to/NotoSansCJK-Regular.ttc]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderDocx } from "../src/documents/render/docx.ts";
import { loadDocumentFonts } from "../src/documents/render/fonts.ts";
import { renderPdf } from "../src/documents/render/pdf.ts";
import type { RenderInput } from "../src/documents/render/types.ts";
import { longMarkdown } from "../test/support/long-document.ts";

function option(name: string): string | null {
  const index = process.argv.indexOf(name);
  return index > 0 ? (process.argv[index + 1] ?? null) : null;
}

const RUNS = 7;
const sections = Number(option("--sections") ?? 30);
const cjkFontPath = option("--cjk-font");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** pdfinfo's count, or the page objects' ("/Type /Page" not followed by "s"), uncompressed in pdfkit's output. */
function pageCount(pdf: Uint8Array, scratch: string): number {
  if (Bun.which("pdfinfo")) {
    const path = join(scratch, "bench.pdf");
    writeFileSync(path, pdf);
    const out = Bun.spawnSync(["pdfinfo", path]).stdout.toString();
    const pages = /^Pages:\s+(\d+)$/m.exec(out)?.[1];
    if (pages) return Number(pages);
  }
  return Buffer.from(pdf).toString("latin1").match(/\/Type \/Page\b(?!s)/g)?.length ?? 0;
}

const markdown = longMarkdown(sections);
const coldFonts = performance.now();
const fonts = await loadDocumentFonts({ cjkFontPath });
const fontMs = performance.now() - coldFonts;
const input: RenderInput = {
  markdown,
  header: { title: "Compte rendu détaillé", date: "2026-11-20T09:00:00Z", participants: ["Élodie Müller", "Łukasz Żółć", "Ωμέγα Αλφα"], language: "fr" },
  fonts,
};

const scratch = mkdtempSync(join(tmpdir(), "verbatim-bench-render-"));
try {
  console.log(`# Document renders, ${sections} sections (${markdown.length} characters of Markdown), bun ${Bun.version}${cjkFontPath ? ", with a CJK font" : ""}\n`);
  console.log(`fonts read in ${fontMs.toFixed(0)} ms (once per process)\n`);
  console.log(`| format | first render | median of ${RUNS} | min | max | pages | bytes |`);
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const [format, render] of [
    ["pdf", renderPdf],
    ["docx", renderDocx],
  ] as const) {
    const cold = performance.now();
    let bytes = await render(input); // warm-up
    const first = performance.now() - cold;
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      bytes = await render(input);
      times.push(performance.now() - started);
    }
    const pages = format === "pdf" ? String(pageCount(bytes, scratch)) : "–";
    console.log(
      `| ${format} | ${first.toFixed(0)} ms | ${median(times).toFixed(1)} ms | ${Math.min(...times).toFixed(1)} ms | ${Math.max(...times).toFixed(1)} ms | ${pages} | ${bytes.byteLength.toLocaleString("en")} |`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

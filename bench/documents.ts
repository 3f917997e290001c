/**
 * Issue 10's figures. The export bundle of a 3-hour meeting (target under 200 ms): the fixtures'
 * reference turns repeated to 3 hours, with a report, at three max_tokens values. Then the PDF and
 * DOCX renders of a document of about ten pages (target under 300 ms each). Each figure is the
 * median of 7 runs after one warm-up (the tokenizer's tables and the fonts load on first use).
 *
 *   bun bench/documents.ts [--hours 3]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderDocx } from "../src/documents/render/docx.ts";
import { loadDocumentFonts } from "../src/documents/render/fonts.ts";
import { renderPdf } from "../src/documents/render/pdf.ts";
import { buildExportBundle, exportMarkdown, type ExportInput } from "../src/exports/bundle.ts";
import { longMarkdown } from "../test/support/long-document.ts";

const hoursIndex = process.argv.indexOf("--hours");
const hours = hoursIndex > 0 ? Number(process.argv[hoursIndex + 1]) : 3;

interface Reference {
  duration_seconds: number;
  turns: { speaker: string; start: number; text: string }[];
}
const references = ["en-3spk", "fr-2spk"].map((name) => JSON.parse(readFileSync(`${import.meta.dir}/../../shared/fixtures/meeting-${name}.json`, "utf8")) as Reference);
const segments: ExportInput["segments"] = [];
let offset = 0;
while (offset < hours * 3600) {
  for (const reference of references) {
    // A number in each line keeps the lines unique, as a real transcript's are (no tokenizer cache hits).
    for (const turn of reference.turns) segments.push({ start: offset + turn.start, speaker: `SPEAKER_${turn.speaker}`, speaker_name: null, text: `${turn.text} (${segments.length})` });
    offset += reference.duration_seconds;
  }
}
const input: ExportInput = {
  meeting: { id: crypto.randomUUID(), title: "Three-hour board meeting", recordedAt: new Date().toISOString(), durationSeconds: offset, language: "en", client: "Acme", tags: ["board"], metadata: { case: "A-17" } },
  participants: [{ name: "Ana", email: "ana@firm.example", speakerLabels: ["SPEAKER_A"] }],
  reportMarkdown: "# Board meeting\n\n## Decisions\n" + "- A decision of the board, written as the report engine writes them.\n".repeat(40),
  segments,
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

console.log(`# Export bundle build time, ${(offset / 3600).toFixed(2)} h of transcript, ${segments.length} lines, bun ${Bun.version}\n`);
const cold = performance.now();
buildExportBundle(input, { language: "en", maxTokens: 24_000 }); // warm-up: loads the tokenizer's tables
console.log(`first build in the process (tokenizer tables loading included): ${(performance.now() - cold).toFixed(0)} ms\n`);
console.log("| max_tokens | parts | total tokens | json (median of 7) | md |");
console.log("|---:|---:|---:|---:|---:|");
for (const maxTokens of [2000, 24_000, 200_000]) {
  const times: number[] = [];
  const mdTimes: number[] = [];
  let bundle = buildExportBundle(input, { language: "en", maxTokens });
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    bundle = buildExportBundle(input, { language: "en", maxTokens });
    const built = performance.now();
    exportMarkdown(bundle);
    times.push(built - started);
    mdTimes.push(performance.now() - started);
  }
  console.log(`| ${maxTokens} | ${bundle.parts.length} | ${bundle.total_tokens} | ${median(times).toFixed(1)} ms | ${median(mdTimes).toFixed(1)} ms |`);
}

// ---- Renders of a ten-page document ------------------------------------------------------------
const markdown = longMarkdown();
const header = { title: "Compte rendu détaillé", meetingTitle: "Comité de pilotage", date: new Date().toISOString(), participants: ["Élodie Müller", "Łukasz Żółć"], language: "fr" };
const coldFonts = performance.now();
const fonts = await loadDocumentFonts({ cjkFontPath: null });
const fontMs = performance.now() - coldFonts;
const scratch = mkdtempSync(join(tmpdir(), "verbatim-bench-render-"));
try {
  const rows: string[] = [];
  for (const [format, render] of [
    ["pdf", renderPdf],
    ["docx", renderDocx],
  ] as const) {
    const first = performance.now();
    let bytes = await render({ markdown, header, fonts });
    const firstMs = performance.now() - first;
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      bytes = await render({ markdown, header, fonts });
      times.push(performance.now() - started);
    }
    let pages = "";
    if (format === "pdf") {
      const path = join(scratch, "bench.pdf");
      writeFileSync(path, bytes);
      const info = Bun.spawnSync(["pdfinfo", path]).stdout.toString();
      pages = /Pages:\s+(\d+)/.exec(info)?.[1] ?? "?";
    }
    rows.push(`| ${format} | ${pages || "-"} | ${(bytes.length / 1024).toFixed(0)} KiB | ${firstMs.toFixed(0)} ms | ${median(times).toFixed(0)} ms |`);
  }
  console.log(`\n# Renders of a ${markdown.length}-character document (fonts read in ${fontMs.toFixed(0)} ms)\n`);
  console.log("| format | pages | size | first render in the process | median of 7 |");
  console.log("|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

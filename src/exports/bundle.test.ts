import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildExportBundle, clock, exportMarkdown, packLines, type ExportInput, type ExportLine, type LinePacker } from "./bundle.ts";
import { tokenCount } from "./tokens.ts";

/** The shared fixtures, beside the checkout. */
const SHARED_FIXTURES = join(import.meta.dir, "../../../shared/fixtures");

interface Reference {
  duration_seconds: number;
  turns: { speaker: string; start: number; end: number; text: string }[];
}

/** A meeting of `hours` hours: the two fixture recordings' reference turns repeated end to end. */
function longMeeting(hours: number): ExportInput {
  const references = ["en-3spk", "fr-2spk"].map(
    (name) => JSON.parse(readFileSync(join(SHARED_FIXTURES, `meeting-${name}.json`), "utf8")) as Reference,
  );
  const segments: ExportInput["segments"] = [];
  let offset = 0;
  while (offset < hours * 3600) {
    for (const reference of references) {
      for (const turn of reference.turns) {
        segments.push({ start: offset + turn.start, speaker: `SPEAKER_0${turn.speaker.charCodeAt(0) - 65}`, speaker_name: turn.speaker === "A" ? "Ana Łukasiewicz" : null, text: turn.text });
      }
      offset += reference.duration_seconds;
    }
  }
  return {
    meeting: {
      id: "7f1c4a52-3e0b-4c1d-9d7e-0a9b8c7d6e5f",
      title: "Comité de pilotage — budget",
      recordedAt: "2026-11-02T09:00:00.000Z",
      durationSeconds: offset,
      language: "fr",
      client: "Acme",
      tags: ["board"],
      metadata: { case: "A-17" },
    },
    participants: [{ name: "Ana Łukasiewicz", email: "ana@firm.example", speakerLabels: ["SPEAKER_00"] }],
    reportMarkdown: "# Comité de pilotage\n\n## Décisions\n- Le budget est validé.\n- Réunion suivante le 9 décembre.",
    segments,
  };
}

const meeting = longMeeting(2.2);
const transcriptLines = meeting.segments.map((s) => `[${clock(s.start)}] ${s.speaker_name ?? s.speaker}: ${s.text}`);

describe("export bundle", () => {
  for (const maxTokens of [2000, 24_000, 200_000]) {
    test(`max_tokens ${maxTokens}: every part within it, every transcript line whole and in order, total exact`, () => {
      const bundle = buildExportBundle(meeting, { language: "fr", maxTokens });
      expect(bundle.parts.length).toBeGreaterThan(0);
      for (const part of bundle.parts) {
        expect(part.tokens).toBe(tokenCount(part.content));
        expect(part.tokens).toBeLessThanOrEqual(maxTokens);
        expect(part.of).toBe(bundle.parts.length);
        // Each part stands alone: it says which meeting and which part it is.
        expect(part.content.split("\n")[0]).toBe(`# Export de réunion: "${meeting.meeting.title}" (${meeting.meeting.id}), partie ${part.part}/${bundle.parts.length}`);
      }
      const exported = bundle.parts.flatMap((p) => p.content.split("\n")).filter((l) => l.startsWith("["));
      expect(exported).toEqual(transcriptLines);
      expect(bundle.total_tokens).toBe(tokenCount(bundle.priming_prompt) + bundle.parts.reduce((s, p) => s + p.tokens, 0));
      expect(bundle.tokenizer).toStartWith("o200k_base");
    });
  }

  test("a 2.2-hour meeting needs several parts at 24000 tokens and one at 200000; later parts say the transcript continues", () => {
    expect(buildExportBundle(meeting, { language: "fr", maxTokens: 200_000 }).parts).toHaveLength(1);
    const bundle = buildExportBundle(meeting, { language: "fr", maxTokens: 24_000 });
    expect(bundle.parts.length).toBeGreaterThan(1);
    expect(bundle.parts[1]!.content).toContain("## Transcription (suite)");
    expect(bundle.parts[0]!.content).toContain("## Compte rendu IA");
    expect(bundle.parts[0]!.content).toContain("- Ana Łukasiewicz <ana@firm.example> (SPEAKER_00)");
  });

  test("md joins the parts with --- Part i/n --- lines after the priming prompt", () => {
    const bundle = buildExportBundle(meeting, { language: "en", maxTokens: 24_000 });
    const md = exportMarkdown(bundle);
    expect(md.startsWith(bundle.priming_prompt)).toBe(true);
    const separators = md.split("\n").filter((l) => /^--- Part \d+\/\d+ ---$/.test(l));
    expect(separators).toEqual(bundle.parts.map((p) => `--- Part ${p.part}/${bundle.parts.length} ---`));
  });

  test("the priming prompt is in the language asked for, and names the number of parts", () => {
    const fr = buildExportBundle(meeting, { language: "fr", maxTokens: 24_000 });
    const en = buildExportBundle(meeting, { language: "en", maxTokens: 24_000 });
    expect(fr.priming_prompt).toContain(`en ${fr.parts.length} parties`);
    expect(fr.priming_prompt).toContain("Vous allez recevoir l'export d'une réunion");
    expect(en.priming_prompt).toContain(`in ${en.parts.length} parts`);
    expect(en.parts[0]!.content).toContain("## AI report");
  });

  test("a transcribe_only meeting exports without a report", () => {
    const bundle = buildExportBundle({ ...meeting, reportMarkdown: null }, { language: "en", maxTokens: 200_000 });
    expect(bundle.parts[0]!.content).not.toContain("## AI report");
    expect(bundle.parts[0]!.content).toContain("## Transcript");
  });

  test("a single line longer than a whole part is cut at words, never lost", () => {
    const long = "mot ".repeat(5000).trim();
    const bundle = buildExportBundle({ ...meeting, segments: [{ start: 0, speaker: "SPEAKER_00", speaker_name: null, text: long }] }, { language: "fr", maxTokens: 2000 });
    for (const part of bundle.parts) expect(part.tokens).toBeLessThanOrEqual(2000);
    const words = bundle.parts.flatMap((p) => p.content.split("\n")).filter((l) => l.startsWith("mot") || l.startsWith("[")).join(" ");
    expect(words.match(/mot/g)!.length).toBe(5000);
  });
});

// The packer and the re-check after it, each tested alone (issue 20, item 13): a packer that
// overshoots must fail its own test even though the re-check would repair its parts, and a
// re-check removed must fail its own test even though packLines never overshoots.
describe("packLines alone", () => {
  const lines: ExportLine[] = transcriptLines.map((text) => ({ section: "transcript", text, tokens: tokenCount(`${text}\n`) }));

  for (const budget of [64, 500, 2000, 24_000]) {
    test(`budget ${budget}: every part within it, as full as the next line allows, every line once and in order`, () => {
      const parts = packLines(lines, budget);
      const sum = (part: ExportLine[]) => part.reduce((total, line) => total + line.tokens, 0);
      for (const [index, part] of parts.entries()) {
        expect(part.length).toBeGreaterThan(0);
        expect(sum(part)).toBeLessThanOrEqual(budget);
        // Greedy: a part was closed only because the next line would not fit.
        const next = parts[index + 1]?.[0];
        if (next) expect(sum(part) + next.tokens).toBeGreaterThan(budget);
      }
      // Every line once, in order (one over the budget comes back in pieces holding its words).
      if (lines.every((line) => line.tokens <= budget)) expect(parts.flat()).toEqual(lines);
      else expect(parts.flat().map((line) => line.text).join(" ")).toBe(lines.map((line) => line.text).join(" "));
    });
  }

  test("a line alone over the budget is cut at words into pieces within it; nothing else is cut", () => {
    const long = { section: "transcript" as const, text: "mot ".repeat(400).trim(), tokens: tokenCount(`${"mot ".repeat(400).trim()}\n`) };
    const short = lines[0]!;
    const parts = packLines([short, long, short], 100);
    expect(parts.flat()[0]).toEqual(short);
    expect(parts.flat().at(-1)).toEqual(short);
    const pieces = parts.flat().slice(1, -1);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.tokens).toBeLessThanOrEqual(100);
    expect(pieces.map((piece) => piece.text).join(" ")).toBe(long.text);
  });

  test("no lines: one empty part", () => {
    expect(packLines([], 100)).toEqual([[]]);
  });
});

describe("the re-check of the written parts alone", () => {
  test("a packer whose first packing overshoots the budget: the bundle is packed again, every part within max_tokens", () => {
    let calls = 0;
    // Everything in one part the first time (far over 2000 tokens), then the real packer.
    const overshootOnce: LinePacker = (lines, budget) => (calls++ === 0 ? [lines] : packLines(lines, budget));
    const bundle = buildExportBundle(meeting, { language: "fr", maxTokens: 2000 }, overshootOnce);
    expect(calls).toBeGreaterThan(1);
    for (const part of bundle.parts) {
      expect(part.tokens).toBe(tokenCount(part.content));
      expect(part.tokens).toBeLessThanOrEqual(2000);
    }
    expect(bundle.parts.flatMap((p) => p.content.split("\n")).filter((l) => l.startsWith("["))).toEqual(transcriptLines);
  });

  test("a packer that always overshoots: refused with an error, never a bundle over max_tokens", () => {
    const alwaysOver: LinePacker = (lines) => [lines];
    expect(() => buildExportBundle(meeting, { language: "fr", maxTokens: 2000 }, alwaysOver)).toThrow(/cannot hold/);
  });
});

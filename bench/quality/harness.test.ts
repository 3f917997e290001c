// The quality harness's own plumbing (bench/quality.ts) on made-up transcripts: no service, no fixtures.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadReference, markdownTable, parseArgs, scoreTranscript, textReport, wavSeconds, type CaseResult } from "../quality.ts";

const scratch = mkdtempSync(join(tmpdir(), "verbatim-quality-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const reference = {
  language: "en",
  durationSeconds: 20,
  speakers: ["A", "B"],
  text: "Good morning everyone. Thanks, let's start.",
  turns: [
    { speaker: "A", start: 0, end: 10 },
    { speaker: "B", start: 10, end: 20 },
  ],
};

const transcript = {
  language: "en",
  duration_seconds: 20,
  model: "whisper-x + diar-y",
  speakers: ["SPEAKER_00", "SPEAKER_01"],
  segments: [
    { start: 0, end: 10, speaker: "SPEAKER_01", speaker_name: null, text: "Good morning, everyone." },
    { start: 10, end: 15, speaker: "SPEAKER_00", speaker_name: null, text: "Thanks, let us" },
    { start: 15, end: 20, speaker: "SPEAKER_01", speaker_name: null, text: "start." },
  ],
};

test("scoreTranscript: the transcript's text and segments against the reference", () => {
  const scores = scoreTranscript(reference, transcript, { collar: 0, skipOverlap: false });
  // "let's" → "let us": one substitution and one insertion over 6 words.
  expect(scores.wer).toMatchObject({ substitutions: 1, insertions: 1, deletions: 0, referenceWords: 6, normalizedAs: "en" });
  expect(scores.found).toBe(2);
  expect(scores.attribution).toMatchObject({ accuracy: 0.75, coverage: 1, mapping: { SPEAKER_01: "A", SPEAKER_00: "B" } });
  expect(scores.der).toMatchObject({ der: 0.25, confusion: 5, missed: 0, falseAlarm: 0, collar: 0 });
  // No text in the reference: no WER; no turns: no speaker metrics.
  const turnsOnly = scoreTranscript({ ...reference, text: null }, transcript, { collar: 0.25, skipOverlap: false });
  expect(turnsOnly.wer).toBeNull();
  expect(turnsOnly.der?.collar).toBe(0.25);
  const textOnly = scoreTranscript({ ...reference, turns: [] }, transcript, { collar: 0, skipOverlap: false });
  expect(textOnly.attribution).toBeNull();
  expect(textOnly.der).toBeNull();
  expect(scores.turns).toBeNull(); // no speaker_turns in this transcript
});

test("scoreTranscript: speaker_turns are scored on their own, and their speakers count as found", () => {
  const withTurns = {
    ...transcript,
    speaker_turns: [
      { start: 0, end: 10, speaker: "SPEAKER_01" },
      { start: 10, end: 18, speaker: "SPEAKER_00" },
      { start: 18, end: 20, speaker: "SPEAKER_02" },
    ],
  };
  const scores = scoreTranscript(reference, withTurns, { collar: 0, skipOverlap: false });
  // Segments: 15 of 20 s right, as before; turns: 18 of 20 s right, SPEAKER_02 unmapped.
  expect(scores.attribution?.accuracy).toBe(0.75);
  expect(scores.turns?.attribution).toMatchObject({ accuracy: 0.9, coverage: 1 });
  expect(scores.turns?.der.confusion).toBe(2);
  expect(scores.found).toBe(3);
});

test("reports: text and Markdown", () => {
  const scores = scoreTranscript(reference, transcript, { collar: 0, skipOverlap: false });
  const result: CaseResult = {
    name: "sample",
    audio: "/x/sample.wav",
    reference: "/x/sample.json",
    rttm: null,
    status: "completed",
    error: null,
    meetingId: "m",
    jobId: "job_1",
    models: transcript.model,
    usage: null,
    language: { reference: "en", requested: null, detected: "en" },
    audioSeconds: 20,
    timing: { wallSeconds: 2, queuedSeconds: 0.1, processingSeconds: 1.5, realTimeFactor: 0.075 },
    speakers: { reference: 2, found: scores.found, hints: { min: null, max: null } },
    segments: 3,
    wer: scores.wer,
    attribution: scores.attribution,
    der: scores.der,
    turns: null,
  };
  const text = textReport(result, "test service");
  expect(text).toContain("WER:         33.33 % (1 substitutions, 0 deletions, 1 insertions over 6 reference words");
  expect(text).toContain("accuracy 75.0 %, coverage 100.0 %");
  expect(text).toContain("DER:         25.00 %");
  const table = markdownTable([result, { ...result, name: "broken", status: "failed", error: "engine_unavailable: no | engine", wer: null, attribution: null, der: null, models: null }]);
  const rows = table.split("\n");
  expect(rows).toHaveLength(4);
  expect(rows[2]).toContain("| sample | 20.0 s | en / en | 33.33 % | 1 / 0 / 1 of 6 | 2 / 2 | 100.0 % | 75.0 % | 25.00 % | 0.00 / 0.00 / 5.00 s |");
  expect(rows[3]).toContain("failed: engine_unavailable: no \\| engine |");
});

test("loadReference: JSON, text and RTTM (the RTTM's turns win)", () => {
  const json = join(scratch, "ref.json");
  const txt = join(scratch, "ref.txt");
  const rttm = join(scratch, "ref.rttm");
  writeFileSync(json, JSON.stringify({ language: "fr", speakers: ["A"], turns: [{ speaker: "A", start: 0, end: 2, text: "Bonjour." }] }));
  writeFileSync(txt, "Just the words.\n");
  writeFileSync(rttm, "SPEAKER rec 1 0.0 1.0 <NA> <NA> s1 <NA> <NA>\nSPEAKER rec 1 1.0 1.0 <NA> <NA> s2 <NA> <NA>\n");
  expect(loadReference({ name: "r", audio: "rec.wav", reference: json })).toMatchObject({ language: "fr", text: "Bonjour.", speakers: ["A"] });
  expect(loadReference({ name: "r", audio: "rec.wav", reference: txt })).toMatchObject({ text: "Just the words.\n", turns: [] });
  expect(loadReference({ name: "r", audio: "rec.wav", reference: json, rttm })).toMatchObject({ text: "Bonjour.", speakers: ["s1", "s2"], turns: [{ speaker: "s1" }, { speaker: "s2" }] });
});

test("wavSeconds reads the header", () => {
  const path = join(scratch, "tone.wav");
  const data = Buffer.alloc(32_000 * 2); // 2 s of 16 kHz mono 16-bit
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([header, data]));
  expect(wavSeconds(path)).toBe(2);
  writeFileSync(join(scratch, "not.wav"), "ID3 not a wav");
  expect(wavSeconds(join(scratch, "not.wav"))).toBeNull();
});

test("parseArgs: defaults and serve arguments after --", () => {
  const options = parseArgs(["--audio", "a.wav", "--rttm=a.rttm", "--engines", "m.ts", "--", "--workers", "2"], {});
  expect(options).toMatchObject({ audio: "a.wav", rttm: "a.rttm", engines: "m.ts", serveArgs: ["--workers", "2"], collar: 0.25, pollSeconds: 0.25, timeoutSeconds: 1800 });
  expect(parseArgs(["--all-fixtures", "--server", "http://h:1/", "--collar", "0"], { VERBATIM_API_KEY: "vb_live_x" })).toMatchObject({
    server: "http://h:1",
    key: "vb_live_x",
    collar: 0,
    pollSeconds: 1,
  });
});

/**
 * Both Silero VAD runtimes on a real fixture: the ONNX export on sherpa-onnx (the default) and
 * whisper.cpp's ggml model in @fugood/whisper.node. Silero is a real, trained model, so its
 * regions are held to the fixture's reference turns.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EngineError } from "../types.ts";
import type { Region } from "./chunks.ts";
import { createSpeechDetector, isOnnxVad } from "./vad.ts";
import { DEFAULT_VAD } from "./vad-settings.ts";
import { readWavInt16 } from "../wav.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const FIXTURE = resolve(ROOT, "../shared/fixtures/meeting-fr-2spk");
const reference = (await Bun.file(`${FIXTURE}.json`).json()) as { turns: { start: number; end: number }[] };
const samples = readWavInt16(`${FIXTURE}.wav`).int16;
const scratch = mkdtempSync(join(tmpdir(), "verbatim-vad-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const overlap = (a: Region, b: { start: number; end: number }) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
const total = (items: { start: number; end: number }[]) => items.reduce((sum, r) => sum + (r.end - r.start), 0);

function expectOnReferenceSpeech(regions: Region[]): void {
  expect(regions.length).toBeGreaterThanOrEqual(reference.turns.length);
  let previousEnd = 0;
  for (const region of regions) {
    expect(region.start).toBeGreaterThanOrEqual(previousEnd);
    expect(region.end).toBeGreaterThan(region.start);
    previousEnd = region.end;
  }
  // Most reference speech is found (reference turns run into the trailing silence of each voice:
  // measured 0.93 for the ONNX model, 0.89 for the ggml one), and nearly all that is found is speech.
  const heard = reference.turns.reduce((sum, turn) => sum + regions.reduce((s, r) => s + overlap(r, turn), 0), 0);
  expect(heard / total(reference.turns)).toBeGreaterThan(0.85);
  expect(heard / total(regions)).toBeGreaterThan(0.9);
}

describe.each([
  ["ONNX on sherpa-onnx", join(ROOT, "models/vad/silero_vad.onnx")],
  ["ggml on whisper.cpp", join(ROOT, "models/whisper/ggml-silero-v6.2.0.bin")],
])("Silero VAD, %s", (_, model) => {
  test("finds the fixture's speech turns and nothing much else", async () => {
    const vad = await createSpeechDetector(model, "default", 2, DEFAULT_VAD);
    try {
      const regions = await vad.detect(samples);
      expectOnReferenceSpeech(regions);
      // A second run on the same detector gives the same regions: no state leaks between recordings.
      expect(await vad.detect(samples)).toEqual(regions);
      expect(await vad.detect(new Int16Array(16_000))).toEqual([]);
    } finally {
      await vad.close();
    }
  }, 60_000);
});

test("the two runtimes agree on the regions to within a tenth of a second at each edge", async () => {
  const [onnx, ggml] = await Promise.all([
    createSpeechDetector(join(ROOT, "models/vad/silero_vad.onnx"), "default", 1, DEFAULT_VAD),
    createSpeechDetector(join(ROOT, "models/whisper/ggml-silero-v6.2.0.bin"), "default", 1, DEFAULT_VAD),
  ]);
  const [a, b] = [await onnx.detect(samples), await ggml.detect(samples)];
  await Promise.all([onnx.close(), ggml.close()]);
  // v5 (ONNX) and v6.2 (ggml) are different releases; matched regions start and end together.
  const matched = a.filter((r) => b.some((s) => Math.abs(s.start - r.start) < 0.1 && Math.abs(s.end - r.end) < 0.15));
  expect(matched.length / a.length).toBeGreaterThanOrEqual(0.75);
}, 60_000);

test("a malformed ONNX VAD model is refused with model_invalid before onnxruntime sees it", async () => {
  const broken = join(scratch, "broken.onnx");
  writeFileSync(broken, (await Bun.file(join(ROOT, "models/vad/silero_vad.onnx")).bytes()).subarray(0, 100_000));
  const error = await createSpeechDetector(broken, "default", 1, DEFAULT_VAD).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EngineError);
  expect((error as EngineError).code).toBe("model_invalid");
  expect((error as EngineError).message).toContain("broken.onnx");
});

test("the runtime is chosen by the model file's extension", () => {
  expect(isOnnxVad("vad/silero_vad.onnx")).toBe(true);
  expect(isOnnxVad("/models/SILERO.ONNX")).toBe(true);
  expect(isOnnxVad("whisper/ggml-silero-v6.2.0.bin")).toBe(false);
});

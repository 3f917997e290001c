// Runs the real sherpa-onnx engine on the shared stand-in models and fixtures. The figures
// asserted are the ones measured in docs/engines/diarization.md, with a little margin.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineError, type Diarizer } from "../types.ts";
import { createSherpaDiarizer, lazySherpaDiarizer, normaliseTurns } from "./sherpa.ts";
import { speakerAttribution, type Turn } from "../../../bench/quality/metrics.ts";
import { FIXTURES, HAVE_FIXTURES, MODELS, stepContext } from "../../../test/support/diarization.ts";

const EN = join(FIXTURES, "meeting-en-3spk.wav");
const FR = join(FIXTURES, "meeting-fr-2spk.wav");
const reference = (name: string) => (JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as { turns: { start: number; end: number; speaker: string }[] }).turns;

/** Speakers found, coverage and share of speech on the right speaker, against a fixture's reference. */
function scoreAgainst(name: string, turns: { start: number; end: number; speaker: number }[]) {
  const result = speakerAttribution(reference(name), turns.map((t): Turn => ({ ...t, speaker: String(t.speaker) })));
  return { speakersFound: result.hypothesisSpeakers, coverage: result.coverage, correct: result.accuracy };
}
const input = (wavPath: string, minSpeakers: number | null, maxSpeakers: number | null, solo = false) => ({ wavPath, durationSeconds: 0, minSpeakers, maxSpeakers, solo });

const dir = mkdtempSync(join(tmpdir(), "verbatim-diarization-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function expectEngineError(promise: Promise<unknown>, code: string, message?: RegExp): Promise<EngineError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  expect((error as EngineError).code).toBe(code);
  expect((error as EngineError).retryable).toBe(false);
  if (message) expect((error as EngineError).message).toMatch(message);
  return error as EngineError;
}

describe.skipIf(!MODELS || !HAVE_FIXTURES)("sherpa diarizer on the fixtures (real engine)", () => {
  let diarizer: Diarizer;
  beforeAll(async () => {
    diarizer = await createSherpaDiarizer({ segmentationModelPath: MODELS!.segmentation, embeddingModelPath: MODELS!.embedding, threads: 2 });
  });

  test("fr-2spk, no hint: 2 speakers, ≥ 0.90 of the speech on the right speaker; progress rises to 1", async () => {
    const { progress, context } = stepContext();
    const turns = await diarizer.diarize(input(FR, null, null), context);
    const score = scoreAgainst("meeting-fr-2spk", turns);
    expect(score.speakersFound).toBe(2);
    expect(score.correct).toBeGreaterThanOrEqual(0.9);
    expect(score.coverage).toBeGreaterThanOrEqual(0.9);
    // Speakers numbered by first appearance, turns ordered.
    expect(turns[0]!.speaker).toBe(0);
    for (let i = 1; i < turns.length; i++) expect(turns[i]!.start).toBeGreaterThanOrEqual(turns[i - 1]!.start);
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.some((p) => p > 0.05 && p < 1)).toBe(true);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(progress.at(-1)).toBe(1);
  });

  test("en-3spk, exact count 3: 3 speakers, coverage ≥ 0.90, correct ≥ 0.70", async () => {
    const turns = await diarizer.diarize(input(EN, 3, 3), stepContext().context);
    const score = scoreAgainst("meeting-en-3spk", turns);
    expect(score.speakersFound).toBe(3);
    expect(score.coverage).toBeGreaterThanOrEqual(0.9);
    expect(score.correct).toBeGreaterThanOrEqual(0.7);
  });

  test("en-3spk, 3 participants as the upper bound: threshold finds 4, re-clustered into 3", async () => {
    const turns = await diarizer.diarize(input(EN, null, 3), stepContext().context);
    const score = scoreAgainst("meeting-en-3spk", turns);
    expect(score.speakersFound).toBe(3);
    expect(score.correct).toBeGreaterThanOrEqual(0.7);
  });

  test("en-3spk, no hint: at least 2 speakers (4 measured), most speech right", async () => {
    const turns = await diarizer.diarize(input(EN, null, null), stepContext().context);
    const score = scoreAgainst("meeting-en-3spk", turns);
    expect(score.speakersFound).toBeGreaterThanOrEqual(2);
    expect(score.speakersFound).toBeLessThanOrEqual(5);
    expect(score.correct).toBeGreaterThanOrEqual(0.7);
  });

  test("en-3spk, exactly 2 asked: exactly 2 clusters", async () => {
    const turns = await diarizer.diarize(input(EN, 2, 2), stepContext().context);
    expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set([0, 1]));
  });

  test("concurrent calls with different clustering are serialised and match sequential results", async () => {
    const [a, b] = await Promise.all([
      diarizer.diarize(input(FR, 2, 2), stepContext().context),
      diarizer.diarize(input(FR, null, null), stepContext().context),
    ]);
    expect(a).toEqual(b);
    expect(new Set(a.map((t) => t.speaker)).size).toBe(2);
  });

  test("solo, or at most one speaker: no turns, and the audio is not read", async () => {
    const missing = join(dir, "never-written.wav");
    expect(await diarizer.diarize(input(missing, null, null, true), stepContext().context)).toEqual([]);
    expect(await diarizer.diarize(input(missing, null, 1), stepContext().context)).toEqual([]);
  });

  test("silence: no turns", async () => {
    const wav = join(dir, "silence.wav");
    const samples = 16000 * 3;
    const header = Buffer.alloc(44);
    header.write("RIFF", 0, "latin1");
    header.writeUInt32LE(36 + samples * 2, 4);
    header.write("WAVEfmt ", 8, "latin1");
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(16000, 24);
    header.writeUInt32LE(32000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write("data", 36, "latin1");
    header.writeUInt32LE(samples * 2, 40);
    writeFileSync(wav, Buffer.concat([header, Buffer.alloc(samples * 2)]));
    expect(await diarizer.diarize(input(wav, null, 4), stepContext().context)).toEqual([]);
  });

  test("an aborted signal fails with EngineError canceled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expectEngineError(diarizer.diarize(input(FR, null, null), stepContext(controller.signal).context), "canceled");
  });

  test("unusable audio fails with a clear EngineError", async () => {
    await expectEngineError(diarizer.diarize(input(join(dir, "absent.wav"), null, null), stepContext().context), "audio_missing");
    const stereo = join(FIXTURES, "real/stereo_diarization.wav");
    await expectEngineError(diarizer.diarize(input(stereo, null, null), stepContext().context), "audio_invalid", /2 channel/);
  });
});

describe.skipIf(!MODELS)("model files are checked before sherpa loads them", () => {
  // If any of these reached sherpa-onnx, onnxruntime's exception (or sherpa's exit()) would take
  // this whole test process down rather than fail one test.
  const create = (segmentationModelPath: string, embeddingModelPath = MODELS!.embedding, expectedModels?: object) =>
    createSherpaDiarizer({ segmentationModelPath, embeddingModelPath, threads: 1, ...(expectedModels ? { expectedModels } : {}) });
  const write = (name: string, bytes: Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const original = () => new Uint8Array(readFileSync(MODELS!.segmentation));

  test("a truncated segmentation model (first 1000 bytes)", async () => {
    await expectEngineError(create(write("truncated.onnx", original().subarray(0, 1000))), "model_invalid", /not a valid ONNX model/);
  });

  test("a model with one byte lost in the middle (like the CRLF-stripped pyannote file)", async () => {
    const bytes = original();
    const damaged = new Uint8Array(bytes.length - 1);
    damaged.set(bytes.subarray(0, 900));
    damaged.set(bytes.subarray(901), 900);
    await expectEngineError(create(write("one-byte-short.onnx", damaged)), "model_invalid", /not a valid ONNX model/);
  });

  test("garbage, text and an empty file", async () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24);
    await expectEngineError(create(write("garbage.onnx", garbage)), "model_invalid");
    await expectEngineError(create(write("html.onnx", new TextEncoder().encode("<html><body>404 Not Found</body></html>\n"))), "model_invalid");
    await expectEngineError(create(write("empty.onnx", new Uint8Array(0))), "model_invalid", /empty/);
  });

  test("a valid ONNX file in the wrong role (embedding model given as segmentation)", async () => {
    await expectEngineError(create(MODELS!.embedding), "model_invalid", /window_size/);
    await expectEngineError(create(MODELS!.segmentation, MODELS!.segmentation), "model_invalid", /output_dim/);
  });

  test("a missing file", async () => {
    await expectEngineError(create(join(dir, "nowhere.onnx")), "model_missing", /does not exist/);
    await expectEngineError(create(MODELS!.segmentation, join(dir, "nowhere.onnx")), "model_missing", /embedding model/);
  });

  test("size or sha256 different from the catalogue's", async () => {
    const bytes = original();
    const good = { bytes: bytes.length, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
    await expectEngineError(create(MODELS!.segmentation, MODELS!.embedding, { segmentation: { ...good, bytes: good.bytes + 1 } }), "model_invalid", /bytes, expected/);
    await expectEngineError(
      create(MODELS!.segmentation, MODELS!.embedding, { segmentation: { ...good, sha256: "0".repeat(64) } }),
      "model_invalid",
      /sha256/,
    );
    // A copy with one byte flipped keeps its size and structure but not its checksum.
    const flipped = bytes.slice();
    flipped[bytes.length - 3]! ^= 0x01;
    await expectEngineError(create(write("flipped.onnx", flipped), MODELS!.embedding, { segmentation: good }), "model_invalid", /sha256/);
    // The catalogue's own figures pass.
    const copy = join(dir, "copy.onnx");
    copyFileSync(MODELS!.segmentation, copy);
    expect(await create(copy, MODELS!.embedding, { segmentation: good })).toHaveProperty("diarize");
  });
});

describe.skipIf(!MODELS || !HAVE_FIXTURES)("lazySherpaDiarizer", () => {
  test("a bad model fails the call, not the creation; once the file is fixed the next call works", async () => {
    const path = join(dir, "lazy-segmentation.onnx");
    const lazy = lazySherpaDiarizer({ segmentationModelPath: path, embeddingModelPath: MODELS!.embedding, threads: 1 });
    await expectEngineError(lazy.diarize(input(FR, 2, 2), stepContext().context), "model_missing");
    writeFileSync(path, readFileSync(MODELS!.segmentation).subarray(0, 1000));
    await expectEngineError(lazy.diarize(input(FR, 2, 2), stepContext().context), "model_invalid");
    copyFileSync(MODELS!.segmentation, path);
    const turns = await lazy.diarize(input(FR, 2, 2), stepContext().context);
    expect(new Set(turns.map((t) => t.speaker)).size).toBe(2);
  });
});

describe("normaliseTurns", () => {
  test("orders, clamps to the audio, drops empty turns and renumbers by first appearance", () => {
    const turns = normaliseTurns(
      [
        { start: 5, end: 7, speaker: 4 },
        { start: 1, end: 2, speaker: 2 },
        { start: 3, end: 3, speaker: 9 },
        { start: 8, end: 12, speaker: 2 },
      ],
      10,
    );
    expect(turns).toEqual([
      { start: 1, end: 2, speaker: 0 },
      { start: 5, end: 7, speaker: 1 },
      { start: 8, end: 10, speaker: 0 },
    ]);
  });
});

import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineError, type SpeechSegment } from "../types.ts";
import { chunkAudio, mapToRecording, normaliseRegions, packRegions } from "./chunks.ts";
import { DEFAULT_DECODING, maxTextContext, resolveDecoding } from "./decoding.ts";
import { smartWhisperParams } from "./backends/smart-whisper.ts";
import { collapseCharRepeats, collapseRepeats, repetitionGuard } from "./guard.ts";
import { whisperLanguage } from "./languages.ts";
import { checkVadModel, checkWhisperModel } from "./ggml-check.ts";
import { finaliseSegments, mapChunkSegments, wordsFromTokens } from "./timestamps.ts";

const seg = (start: number, end: number, text: string, words?: SpeechSegment["words"]): SpeechSegment => ({ start, end, text, ...(words ? { words } : {}) });

describe("repetition guard", () => {
  test("cuts a word repeated many times to one occurrence", () => {
    const [out] = repetitionGuard([seg(0, 5, "I think the the the the the the the the plan works")]);
    expect(out!.text).toBe("I think the plan works");
  });

  test("cuts a repeated phrase (n-gram) loop", () => {
    const loop = Array.from({ length: 12 }, () => "thank you for watching").join(" ");
    const [out] = repetitionGuard([seg(0, 30, `Okay. ${loop}`)]);
    expect(out!.text).toBe("Okay. thank you for watching");
  });

  test("keeps short natural repetition", () => {
    const text = "No, no, no. We said that. Very very good.";
    expect(repetitionGuard([seg(0, 3, text)])[0]!.text).toBe(text);
  });

  test("cuts character loops but not numbers", () => {
    expect(collapseCharRepeats("autouezuezuezuezuezuezuezuez", 6, 12)).toBe("autouez");
    expect(collapseCharRepeats("it cost 1000000000 dollars", 6, 12)).toBe("it cost 1000000000 dollars");
  });

  test("drops a segment equal to each of the previous two", () => {
    const out = repetitionGuard([seg(0, 1, "Thank you."), seg(1, 2, "thank you"), seg(2, 3, "Thank you!"), seg(3, 4, "Thank you."), seg(4, 5, "Bye.")]);
    expect(out.map((s) => s.text)).toEqual(["Thank you.", "thank you", "Bye."]);
  });

  test("drops segments left with no letters or digits", () => {
    expect(repetitionGuard([seg(0, 1, "..."), seg(1, 2, " ♪ "), seg(2, 3, "Hello")]).map((s) => s.text)).toEqual(["Hello"]);
  });

  test("with words, cuts the repeated words and keeps their times", () => {
    const words = [
      { start: 0, end: 0.5, text: "go" },
      ...Array.from({ length: 6 }, (_, i) => ({ start: 0.5 + i * 0.5, end: 1 + i * 0.5, text: "on" })),
    ];
    const [out] = repetitionGuard([seg(0, 4, "go on on on on on on", words)]);
    expect(out!.text).toBe("go on");
    expect(out!.words).toEqual([words[0]!, words[1]!]);
    expect(out!.end).toBe(1);
  });

  test("collapseRepeats keeps indexes of the first occurrence", () => {
    expect(collapseRepeats(["a", "b", "a", "b", "a", "b", "a", "b", "c"], 4, 4)).toEqual([0, 1, 8]);
  });
});

describe("chunk packing and time mapping", () => {
  test("pads, clamps and joins close regions", () => {
    expect(normaliseRegions([{ start: 0.1, end: 1 }, { start: 1.5, end: 2 }, { start: 5, end: 9.95 }], 10, 0.2, 0.5)).toEqual([
      { start: 0, end: 2.2 },
      { start: 4.8, end: 10 },
    ]);
  });

  test("packs regions into chunks of at most 30 s with separators, splitting long regions", () => {
    const chunks = packRegions([{ start: 0, end: 10 }, { start: 20, end: 35 }, { start: 40, end: 110 }], { separatorSeconds: 0.5, maxChunkSeconds: 30 });
    for (const chunk of chunks) expect(chunk.duration).toBeLessThanOrEqual(30);
    expect(chunks[0]!.pieces).toEqual([{ at: 0, start: 0, end: 10 }, { at: 10.5, start: 20, end: 35 }]);
    // 70 s of speech become three parts of 23.3 s, each its own chunk.
    expect(chunks.length).toBe(4);
    expect(chunks.slice(1).every((c) => c.pieces.length === 1 && Math.abs(c.duration - 70 / 3) < 1e-9)).toBe(true);
  });

  test("maps chunk time to the recording; separators map to piece edges", () => {
    const [chunk] = packRegions([{ start: 5, end: 8 }, { start: 20, end: 22 }], { separatorSeconds: 1, maxChunkSeconds: 30 });
    expect(mapToRecording(chunk!, 1, "start")).toBe(6);
    expect(mapToRecording(chunk!, 5.5, "end")).toBe(21.5);
    expect(mapToRecording(chunk!, 3.5, "start")).toBe(20); // in the separator
    expect(mapToRecording(chunk!, 3.5, "end")).toBe(8);
    expect(mapToRecording(chunk!, 99, "end")).toBe(22); // past the chunk's end
  });

  test("a segment wholly in a separator or past the end is dropped; others keep inside speech", () => {
    const [chunk] = packRegions([{ start: 5, end: 8 }, { start: 20, end: 22 }], { separatorSeconds: 1, maxChunkSeconds: 30 });
    const mapped = mapChunkSegments(chunk!, [{ start: 0.5, end: 2.9, text: "a" }, { start: 3.1, end: 3.9, text: "gap" }, { start: 2, end: 5.5, text: "across" }, { start: 7, end: 9, text: "beyond" }], false);
    const out = finaliseSegments(mapped, 30);
    expect(out.map((s) => s.text)).toEqual(["a", "across"]);
    expect(out[0]).toEqual({ start: 5.5, end: 7.9, text: "a" });
    expect(out[1]).toEqual({ start: 7.9, end: 21.5, text: "across" });
  });

  test("chunk audio places pieces at their offsets with silence between", () => {
    const samples = Int16Array.from({ length: 100 }, (_, i) => i + 1);
    const [chunk] = packRegions([{ start: 0.1, end: 0.2 }, { start: 0.5, end: 0.6 }], { separatorSeconds: 0.05, maxChunkSeconds: 30 });
    const audio = chunkAudio(chunk!, samples, 100);
    expect(audio.length).toBe(25);
    expect(Array.from(audio.subarray(0, 10))).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(Array.from(audio.subarray(10, 15))).toEqual([0, 0, 0, 0, 0]);
    expect(Array.from(audio.subarray(15))).toEqual([51, 52, 53, 54, 55, 56, 57, 58, 59, 60]);
  });
});

describe("timestamps", () => {
  test("clamps to the recording, orders, removes overlap and empty segments", () => {
    const out = finaliseSegments([seg(3, 4, "b"), seg(-1, 2.5, "a"), seg(3.5, 3.8, "inside"), seg(3.9, 9, "c"), seg(9, 12, "past"), seg(2, 2, "empty"), seg(1, 2, "  ")], 8);
    expect(out).toEqual([seg(0, 2.5, "a"), seg(3, 4, "b inside"), seg(4, 8, "c")]);
  });

  test("words are joined from tokens, special tokens skipped, and kept inside their segment in order", () => {
    const words = wordsFromTokens([
      { text: "[_BEG_]", start: 0, end: 0 },
      { text: " Hel", start: 0.1, end: 0.3 },
      { text: "lo", start: 0.3, end: 0.5 },
      { text: ",", start: 0.5, end: 0.55 },
      { text: " world", start: 0.6, end: 1.2 },
      { text: "<|endoftext|>", start: 1.2, end: 1.2 },
    ]);
    expect(words).toEqual([
      { text: "Hello,", start: 0.1, end: 0.55 },
      { text: "world", start: 0.6, end: 1.2 },
    ]);
    const [out] = finaliseSegments([seg(0.2, 1, "Hello, world", words)], 10);
    expect(out!.words).toEqual([
      { text: "Hello,", start: 0.2, end: 0.55 },
      { text: "world", start: 0.6, end: 1 },
    ]);
  });
});

describe("configuration and inputs", () => {
  test("decoding defaults are greedy without fallback, and bad values are refused", () => {
    expect(resolveDecoding()).toEqual({ ...DEFAULT_DECODING });
    expect(DEFAULT_DECODING).toMatchObject({ beamSize: 1, bestOf: 1, temperature: 0, temperatureInc: 0, maxContext: 0 });
    expect(resolveDecoding({ beamSize: 5, temperatureInc: undefined }).beamSize).toBe(5);
    expect(() => resolveDecoding({ beamSize: 0 })).toThrow(RangeError);
    expect(() => resolveDecoding({ temperatureInc: -0.2 })).toThrow(RangeError);
    expect(() => resolveDecoding(JSON.parse('{"temperatureinc": 0.2}'))).toThrow(/unknown option/);
  });

  test("a prompt opens whisper.cpp's text window (0 would make it ignore the prompt); without one it stays shut", () => {
    expect(maxTextContext(DEFAULT_DECODING)).toBe(0);
    const prompted = { ...DEFAULT_DECODING, initialPrompt: "Kubernetes, Acme" };
    expect(maxTextContext(prompted)).toBe(224);
    expect(maxTextContext({ ...prompted, maxContext: 300 })).toBe(300);
    expect(maxTextContext({ ...DEFAULT_DECODING, maxContext: -1 })).toBe(16384);
    const params = smartWhisperParams("en", 2, prompted);
    expect(params).toMatchObject({ initial_prompt: "Kubernetes, Acme", n_max_text_ctx: 224, no_context: true });
    expect(smartWhisperParams("en", 2, DEFAULT_DECODING)).not.toHaveProperty("initial_prompt");
  });

  test("languages: codes are normalised, unknown ones refused", () => {
    expect(whisperLanguage(null)).toBeNull();
    expect(whisperLanguage("auto")).toBeNull();
    expect(whisperLanguage("EN-gb")).toBe("en");
    expect(whisperLanguage("fr")).toBe("fr");
    expect(() => whisperLanguage("xx")).toThrow(EngineError);
  });

  test("model files are checked before a binding sees them", () => {
    const dir = mkdtempSync(join(tmpdir(), "whisper-model-"));
    const missing = join(dir, "nope.bin");
    expect(() => checkWhisperModel(missing)).toThrow(expect.objectContaining({ code: "model_missing", retryable: false }));
    const text = join(dir, "text.bin");
    writeFileSync(text, "not a model at all, just some text that is long enough to have a header");
    expect(() => checkWhisperModel(text)).toThrow(expect.objectContaining({ code: "model_invalid" }));
    expect(() => checkVadModel(text)).toThrow(expect.objectContaining({ code: "model_invalid" }));
  });
});

import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selectModels, STAND_IN_MODELS } from "./selection.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-selection-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const install = (path: string) => {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), "x");
};

test("auto on a fresh models dir: the stand-ins", () => {
  expect(selectModels(dir, "auto")).toEqual(STAND_IN_MODELS);
});

test("auto takes each role's installed profile model, gpu first, else its stand-in", () => {
  install("whisper/ggml-small.bin"); // the cpu profile's
  install("llm/Qwen2.5-7B-Instruct-Q4_K_M.gguf"); // the gpu profile's
  const chosen = selectModels(dir, "auto");
  expect(chosen.whisper).toBe("whisper/ggml-small.bin");
  expect(chosen.llm).toBe("llm/Qwen2.5-7B-Instruct-Q4_K_M.gguf");
  expect(chosen.segmentation).toBe(STAND_IN_MODELS.segmentation);
  install("whisper/ggml-large-v3-turbo.bin");
  expect(selectModels(dir, "auto").whisper).toBe("whisper/ggml-large-v3-turbo.bin");
});

test("a named profile is taken whole, installed or not; stand-in ignores what is installed", () => {
  expect(selectModels(dir, "cpu")).toMatchObject({
    whisper: "whisper/ggml-small.bin",
    segmentation: "diarization/pyannote-segmentation-3.0.onnx",
    embedding: "diarization/wespeaker_en_voxceleb_CAM++_LM.onnx",
    llm: "llm/qwen2.5-1.5b-instruct-q4_k_m.gguf",
  });
  expect(selectModels(dir, "gpu").whisper).toBe("whisper/ggml-large-v3-turbo.bin");
  expect(selectModels(dir, "stand-in")).toEqual(STAND_IN_MODELS);
});

import { describe, expect, test } from "bun:test";
import { readWorkerConfig, WORKER_CONFIG_ENV, type WorkerConfig } from "./config.ts";

const config: WorkerConfig = {
  engines: "builtin",
  modelsDir: "/models",
  models: { whisper: "whisper/ggml-base.bin", vad: null, segmentation: "s.onnx", embedding: "e.onnx", llm: "llm/q.gguf" },
  threads: 4,
  gpu: "auto",
  whisperDecoding: { beamSize: 5 },
  diarizationThreshold: 0.7,
  llmContextSize: null,
  speakers: { min: null, max: 6 },
  ffmpegPath: "/usr/bin/ffmpeg",
  egressAllow: "",
  maxDownloadBytes: 2_000_000_000,
  downloadTimeoutMs: 600_000,
  maxDurationSeconds: 14_400,
  minFreeDisk: { percent: 5, bytes: 1_000_000_000 },
};

describe("readWorkerConfig", () => {
  test("reads back what the service wrote, keys a custom engines module may want included", () => {
    expect(readWorkerConfig({ [WORKER_CONFIG_ENV]: JSON.stringify(config) })).toEqual(config);
    const extra = { ...config, engines: "./my-engines.ts", myEngineOption: 3 };
    expect(readWorkerConfig({ [WORKER_CONFIG_ENV]: JSON.stringify(extra) })).toEqual(extra);
  });

  test("refuses a missing or malformed configuration instead of running on it", () => {
    expect(() => readWorkerConfig({})).toThrow(/is not set/);
    expect(() => readWorkerConfig({ [WORKER_CONFIG_ENV]: "{" })).toThrow();
    expect(() => readWorkerConfig({ [WORKER_CONFIG_ENV]: JSON.stringify({ ...config, threads: "4" }) })).toThrow();
    const { ffmpegPath: _, ...withoutFfmpeg } = config;
    expect(() => readWorkerConfig({ [WORKER_CONFIG_ENV]: JSON.stringify(withoutFfmpeg) })).toThrow();
  });
});

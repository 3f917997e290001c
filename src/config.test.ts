import { expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { parseOptions, UsageError } from "./cli/options.ts";
import { SERVE_OPTIONS } from "./config-options.ts";
import { serviceConfig } from "./config.ts";

const config = (argv: string[], env: Record<string, string> = {}) => serviceConfig(parseOptions(argv, SERVE_OPTIONS, env));

test("engine threads: explicit, or the cores shared among the workers", () => {
  const cores = availableParallelism();
  expect(config([]).engineSettings.threads).toBe(cores);
  expect(config(["--workers", "2"]).engineSettings.threads).toBe(Math.max(1, Math.floor(cores / 2)));
  expect(config(["--workers", String(cores * 4)]).engineSettings.threads).toBe(1);
  expect(config(["--threads", "3", "--workers", "8"]).engineSettings.threads).toBe(3);
  expect(config([], { VERBATIM_THREADS: "5" }).engineSettings.threads).toBe(5);
  expect(() => config(["--threads", "-1"])).toThrow(UsageError);
});

test("model names, speaker bounds and engine options reach the engine settings", () => {
  const settings = config([
    "--models-dir", "/srv/models", "--whisper-model", "whisper/ggml-large-v3-turbo.bin", "--vad-model", "none",
    "--min-speakers", "2", "--max-speakers", "6", "--gpu", "off", "--whisper-decoding", '{"beamSize":5}', "--llm-context", "4096",
  ]).engineSettings;
  expect(settings).toMatchObject({
    modelsDir: "/srv/models",
    models: { whisper: "whisper/ggml-large-v3-turbo.bin", vad: null },
    speakers: { min: 2, max: 6 },
    gpu: false,
    whisperDecoding: { beamSize: 5 },
    llmContextSize: 4096,
  });
  expect(config([]).engineSettings.speakers).toEqual({ min: null, max: null });
  expect(() => config(["--min-speakers", "5", "--max-speakers", "2"])).toThrow(UsageError);
  expect(() => config(["--gpu", "cuda"])).toThrow(UsageError);
  expect(() => config(["--whisper-decoding", "[1]"])).toThrow(UsageError);
  expect(() => config(["--diarization-threshold", "0"])).toThrow(UsageError);
});

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LibVariant, TranscribeOptions, WhisperContext, WhisperVadContext } from "@fugood/whisper.node";
import { z } from "zod";
import { importNative, resolveNative } from "../../native.ts";
import type { ModelFile } from "../../model-file.ts";
import { EngineError } from "../../types.ts";
import type { WhisperBackend } from "./backend.ts";
import { maxTextContext } from "../decoding.ts";

/** The @fugood platform package of a variant on this machine, e.g. @fugood/node-whisper-linux-x64-cuda. */
export function fugoodPackage(variant: LibVariant): string {
  return `@fugood/node-whisper-${process.platform}-${process.arch}${variant === "default" ? "" : `-${variant}`}`;
}

/** Whether the CUDA build of @fugood loads here (it needs the CUDA runtime and a driver). */
export async function fugoodCudaLoads(): Promise<boolean> {
  try {
    const module = await importNative<{ WhisperContext?: unknown }>(fugoodPackage("cuda"));
    return Boolean(module.WhisperContext);
  } catch {
    return false;
  }
}

/** The one field of a package.json we read. */
const packageVersion = z.looseObject({ version: z.string().optional() });

/** The installed version of @fugood/whisper.node, for the model label. */
function fugoodVersion(): string {
  try {
    const entry = require.resolve(resolveNative("@fugood/whisper.node"));
    let dir = dirname(entry);
    while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
    const manifest = packageVersion.safeParse(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")));
    return (manifest.success ? manifest.data.version : undefined) ?? "?";
  } catch {
    return "?";
  }
}

/**
 * The @fugood module is a process-wide singleton: the first load picks the variant (default or
 * cuda) for both whisper and the VAD, so the engine loads it once with the variant it wants.
 */
export async function loadFugood(variant: LibVariant) {
  // Its native log is left on stderr: routing it to a JS callback (toggleNativeLog) holds a
  // thread-safe function that keeps the process from ever exiting.
  const { loadWhisperModule } = await importNative<typeof import("@fugood/whisper.node")>("@fugood/whisper.node");
  return loadWhisperModule(variant);
}

/** A copy of the samples as the ArrayBuffer of 16-bit PCM the @fugood binding takes. */
export function int16Buffer(samples: Int16Array): ArrayBuffer {
  return samples.slice().buffer as ArrayBuffer;
}

/**
 * The @fugood/whisper.node binding (whisper.cpp 1.8). Its linux-x64 CPU prebuild has no AVX2
 * code (about 19 s per 30 s window of tiny on 2 cores), so it is the CPU engine only when
 * smart-whisper is not available; its CUDA prebuild is the GPU engine. It reports no token
 * times, so segments carry no words.
 */
export async function createFugoodBackend(variant: LibVariant, model: ModelFile, useGpu: boolean): Promise<WhisperBackend> {
  const module = await loadFugood(variant);
  let context: WhisperContext;
  try {
    context = await (new module.WhisperContext({ filePath: model.path, useGpu }) as WhisperContext | Promise<WhisperContext>);
  } catch (error) {
    throw new EngineError("model_invalid", `whisper.cpp could not load the whisper model ${model.name}.`, false, { detail: (error as Error).message });
  }
  let closed = false;
  return {
    name: `@fugood/whisper.node ${fugoodVersion()} (${variant === "cuda" ? "cuda" : "cpu"})`,
    async transcribe(audio, { language, threads, decoding, onProgress }) {
      if (closed) throw new Error("the whisper model was released");
      const options: TranscribeOptions = {
        language: language ?? "auto",
        maxThreads: threads,
        // The binding always decodes greedily (beamSize has no effect there).
        bestOf: decoding.bestOf,
        temperature: decoding.temperature,
        temperatureInc: decoding.temperatureInc,
        maxContext: maxTextContext(decoding),
        onNewSegments: (result) => {
          const last = result.segments.at(-1);
          if (last) onProgress(last.t1 / 1000);
        },
      };
      if (decoding.initialPrompt) options.prompt = decoding.initialPrompt;
      let result;
      try {
        result = await context.transcribeData(int16Buffer(audio), options).promise;
      } catch (error) {
        throw new EngineError("transcription_failed", "whisper.cpp failed on this recording.", true, { detail: (error as Error).message });
      }
      return {
        language: language ?? (result.language || null),
        segments: result.segments.map((s) => ({ start: s.t0 / 1000, end: s.t1 / 1000, text: s.text })),
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await context.release();
    },
  };
}

export type { WhisperVadContext };

import { resolve } from "node:path";
import { EngineError, type Engines } from "./types.ts";

export interface EngineSettings {
  /** "builtin", or the path of a module exporting createEngines(settings): Engines. */
  engines: string;
  modelsDir: string;
}

/**
 * The built-in speech and report engines (whisper.cpp, sherpa-onnx diarization, llama.cpp) are
 * the next piece of work; until they are installed, a job reaching those steps fails with this
 * clear error rather than producing anything made up.
 */
function builtinEngines(): Engines {
  const missing = (what: string) => () => {
    throw new EngineError("engine_unavailable", `The ${what} engine is not installed in this build.`, false);
  };
  return {
    transcriber: { transcribe: missing("transcription") },
    diarizer: { diarize: missing("diarization") },
    reporter: { report: missing("report") },
  };
}

export async function loadEngines(settings: EngineSettings): Promise<Engines> {
  if (settings.engines === "builtin") return builtinEngines();
  const module = (await import(resolve(settings.engines))) as { createEngines?: (s: EngineSettings) => Engines | Promise<Engines> };
  if (typeof module.createEngines !== "function") {
    throw new Error(`${settings.engines} does not export createEngines(settings)`);
  }
  return module.createEngines(settings);
}

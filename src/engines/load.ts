import { resolve } from "node:path";
import { builtinEngines, type BuiltinEngineSettings } from "./builtin.ts";
import type { Engines } from "./types.ts";

export interface EngineSettings extends BuiltinEngineSettings {
  /** "builtin", or the path of a module exporting createEngines(settings): Engines. */
  engines: string;
}

export async function loadEngines(settings: EngineSettings): Promise<Engines> {
  if (settings.engines === "builtin") return builtinEngines(settings);
  const module = (await import(resolve(settings.engines))) as { createEngines?: (s: EngineSettings) => Engines | Promise<Engines> };
  if (typeof module.createEngines !== "function") {
    throw new Error(`${settings.engines} does not export createEngines(settings)`);
  }
  return module.createEngines(settings);
}

/**
 * Which models the service runs when the configuration names none: the models of a profile
 * (gpu: large-v3-turbo, pyannote + WeSpeaker, a 7B instruct model; cpu: small, the same
 * diarization, a 1.5B instruct model), or the development stand-ins. With `auto`, each role takes
 * the first of the gpu then cpu profile's models that is installed, else its stand-in, so a site
 * that installed a profile runs it without naming a file, and a fresh checkout runs the stand-ins.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SHIPPED_CATALOGUE, type CatalogueEntry } from "./catalogue.ts";

export const MODEL_PROFILES = ["auto", "gpu", "cpu", "stand-in"] as const;
export type ModelProfile = (typeof MODEL_PROFILES)[number];

export type ModelRole = "whisper" | "vad" | "segmentation" | "embedding" | "llm";
const KIND_OF: Record<ModelRole, string> = {
  whisper: "whisper",
  vad: "vad",
  segmentation: "diarization-segmentation",
  embedding: "diarization-embedding",
  llm: "llm",
};

/** The development stand-ins (and the real Silero VAD): what tests and a fresh checkout run. */
export const STAND_IN_MODELS: Record<ModelRole, string> = {
  whisper: "whisper/ggml-tiny-random.bin",
  vad: "vad/silero_vad.onnx",
  segmentation: "diarization/segmentation-energy-pauses.onnx",
  embedding: "diarization/embedding-fbank-stats.onnx",
  llm: "llm/stories260K.gguf",
};

function profileEntry(role: ModelRole, profile: "gpu" | "cpu", catalogue: readonly CatalogueEntry[]): CatalogueEntry | undefined {
  return catalogue.find((entry) => entry.kind === KIND_OF[role] && entry.profiles.includes(profile));
}

/** The model path (in the models directory) each role runs under `profile`. */
export function selectModels(modelsDir: string, profile: ModelProfile, catalogue: readonly CatalogueEntry[] = SHIPPED_CATALOGUE): Record<ModelRole, string> {
  const roles = Object.keys(KIND_OF) as ModelRole[];
  const pick = (role: ModelRole): string => {
    if (profile === "stand-in") return STAND_IN_MODELS[role];
    if (profile === "gpu" || profile === "cpu") return profileEntry(role, profile, catalogue)?.path ?? STAND_IN_MODELS[role];
    for (const candidate of ["gpu", "cpu"] as const) {
      const entry = profileEntry(role, candidate, catalogue);
      if (entry && existsSync(join(modelsDir, entry.path))) return entry.path;
    }
    return STAND_IN_MODELS[role];
  };
  return Object.fromEntries(roles.map((role) => [role, pick(role)])) as Record<ModelRole, string>;
}

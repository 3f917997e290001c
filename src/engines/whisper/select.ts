import { readFileSync } from "node:fs";
import type { LibVariant } from "@fugood/whisper.node";
import type { BackendName } from "./backends/backend.ts";
import { fugoodCudaLoads } from "./backends/fugood.ts";
import { loadSmartWhisper } from "./backends/smart-whisper.ts";

/** Whether this CPU runs x86-64-v3 code (AVX2, FMA, F16C), which the smart-whisper build uses. */
export function cpuHasAvx2(): boolean {
  if (process.arch !== "x64") return true; // the build flags only apply to x64
  try {
    const flags = /^flags\s*:(.*)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.split(/\s+/) ?? [];
    return ["avx2", "fma", "f16c"].every((flag) => flags.includes(flag));
  } catch {
    return false;
  }
}

export interface BackendChoice {
  backend: BackendName;
  /** The @fugood variant, for the VAD (and for whisper when backend is "fugood"). */
  variant: LibVariant;
  /** Why this one: logged by the caller. */
  reason: string;
}

/** What the choice looks at on this machine; tests pass stubs so that no native module loads. */
export interface BackendProbes {
  /** Whether the @fugood CUDA build loads (it needs the CUDA runtime and a driver). */
  cudaLoads(): Promise<boolean>;
  /** The smart-whisper module, or why it does not load. */
  loadSmartWhisper(): Promise<unknown>;
  cpuHasAvx2(): boolean;
}

const MACHINE: BackendProbes = { cudaLoads: fugoodCudaLoads, loadSmartWhisper, cpuHasAvx2 };

/**
 * Per device: on a GPU host the CUDA prebuild of @fugood/whisper.node (when it loads); on CPU
 * smart-whisper built with AVX2 (about 1 s per 30 s window of tiny on 2 cores), else the
 * @fugood CPU prebuild (no AVX2: about 19 s per window).
 */
export async function chooseBackend(useGpu: boolean, forced: BackendName | "auto" = "auto", probes: BackendProbes = MACHINE): Promise<BackendChoice> {
  if (forced === "fugood") {
    const cuda = useGpu && (await probes.cudaLoads());
    return { backend: "fugood", variant: cuda ? "cuda" : "default", reason: `configured${useGpu && !cuda ? "; the CUDA build does not load here" : ""}` };
  }
  if (forced === "auto" && useGpu) {
    if (await probes.cudaLoads()) return { backend: "fugood", variant: "cuda", reason: "GPU: @fugood CUDA build" };
  }
  const smart = await probes.loadSmartWhisper();
  if (forced === "smart-whisper") {
    if (smart instanceof Error) throw new Error(`The smart-whisper backend was configured but does not load: ${smart.message}`);
    return { backend: "smart-whisper", variant: "default", reason: "configured" };
  }
  const gpuNote = useGpu ? "GPU requested but the @fugood CUDA build does not load; " : "";
  if (!(smart instanceof Error) && probes.cpuHasAvx2()) return { backend: "smart-whisper", variant: "default", reason: `${gpuNote}CPU: smart-whisper` };
  const why = smart instanceof Error ? `smart-whisper is not available (${smart.message.split("\n")[0]})` : "this CPU lacks AVX2/FMA/F16C";
  return { backend: "fugood", variant: "default", reason: `${gpuNote}CPU: @fugood prebuild, slow, because ${why}` };
}

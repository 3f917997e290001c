import { describe, expect, test } from "bun:test";
import { chooseBackend, type BackendProbes } from "./select.ts";

/** A machine described by stubs, counting what the choice asked: no native module is ever loaded. */
function machine(o: { cuda: boolean; smart: boolean; avx2: boolean }) {
  const asked = { cuda: 0, smart: 0, avx2: 0 };
  const probes: BackendProbes = {
    async cudaLoads() {
      asked.cuda++;
      return o.cuda;
    },
    async loadSmartWhisper() {
      asked.smart++;
      return o.smart ? { WhisperModel: {}, binding: {} } : new Error("Cannot find module 'smart-whisper'\nRequire stack: ...");
    },
    cpuHasAvx2() {
      asked.avx2++;
      return o.avx2;
    },
  };
  return { probes, asked };
}

describe("chooseBackend", () => {
  test("a GPU whose CUDA build loads: @fugood CUDA, without even loading smart-whisper", async () => {
    const { probes, asked } = machine({ cuda: true, smart: true, avx2: true });
    expect(await chooseBackend(true, "auto", probes)).toEqual({ backend: "fugood", variant: "cuda", reason: "GPU: @fugood CUDA build" });
    expect(asked).toEqual({ cuda: 1, smart: 0, avx2: 0 });
  });

  test("no GPU, smart-whisper loads on an AVX2 CPU: smart-whisper", async () => {
    const { probes, asked } = machine({ cuda: false, smart: true, avx2: true });
    const choice = await chooseBackend(true, "auto", probes);
    expect(choice).toMatchObject({ backend: "smart-whisper", variant: "default" });
    expect(choice.reason).toContain("GPU requested but the @fugood CUDA build does not load");
    expect(asked.cuda).toBe(1);
  });

  test("smart-whisper does not load: the @fugood CPU fallback, saying why", async () => {
    const { probes } = machine({ cuda: false, smart: false, avx2: true });
    const choice = await chooseBackend(false, "auto", probes);
    expect(choice).toMatchObject({ backend: "fugood", variant: "default" });
    expect(choice.reason).toBe("CPU: @fugood prebuild, slow, because smart-whisper is not available (Cannot find module 'smart-whisper')");
  });

  test("smart-whisper loads but the CPU lacks AVX2: the @fugood CPU fallback", async () => {
    const { probes } = machine({ cuda: false, smart: true, avx2: false });
    const choice = await chooseBackend(false, "auto", probes);
    expect(choice).toMatchObject({ backend: "fugood", variant: "default" });
    expect(choice.reason).toContain("this CPU lacks AVX2");
  });

  test("--gpu off: the CUDA build is never tried, even where it would load", async () => {
    const { probes, asked } = machine({ cuda: true, smart: true, avx2: true });
    expect(await chooseBackend(false, "auto", probes)).toEqual({ backend: "smart-whisper", variant: "default", reason: "CPU: smart-whisper" });
    expect(asked.cuda).toBe(0);
  });

  test("a forced backend: fugood takes CUDA only with the GPU on; smart-whisper must load", async () => {
    expect(await chooseBackend(true, "fugood", machine({ cuda: true, smart: true, avx2: true }).probes)).toMatchObject({ backend: "fugood", variant: "cuda" });
    expect(await chooseBackend(false, "fugood", machine({ cuda: true, smart: true, avx2: true }).probes)).toMatchObject({ backend: "fugood", variant: "default" });
    const noCuda = await chooseBackend(true, "fugood", machine({ cuda: false, smart: true, avx2: true }).probes);
    expect(noCuda).toMatchObject({ backend: "fugood", variant: "default", reason: "configured; the CUDA build does not load here" });
    const gpuHost = machine({ cuda: true, smart: true, avx2: true });
    expect(await chooseBackend(true, "smart-whisper", gpuHost.probes)).toEqual({ backend: "smart-whisper", variant: "default", reason: "configured" });
    expect(gpuHost.asked.cuda).toBe(0);
    await expect(chooseBackend(false, "smart-whisper", machine({ cuda: false, smart: false, avx2: true }).probes)).rejects.toThrow(/configured but does not load/);
  });
});

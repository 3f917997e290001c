import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkGgufModel, modelNameOf } from "./gguf-check.ts";
import { createLlamaReporter } from "./reporter.ts";
import { engineError } from "../../../test/support/engines.ts";

const modelPath = join(import.meta.dir, "../../../models/llm/stories260K.gguf");
const dir = mkdtempSync(join(tmpdir(), "verbatim-llm-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("model file checks", () => {
  test("the real model passes and is named after its file", async () => {
    expect(await checkGgufModel(modelPath)).toEqual({ name: "stories260K", bytes: 1_185_376 });
    expect(modelNameOf("/x/y/Qwen2.5-1.5B-Instruct-Q4_K_M.gguf")).toBe("Qwen2.5-1.5B-Instruct-Q4_K_M");
  });

  test("a missing file or a directory → model_missing, not retryable", async () => {
    for (const path of [join(dir, "absent.gguf"), dir]) {
      const error = await engineError(createLlamaReporter({ modelPath: path, threads: 2, gpu: false }));
      expect(error.code).toBe("model_missing");
      expect(error.retryable).toBe(false);
    }
  });

  test("a file that is not GGUF → model_invalid before llama.cpp sees it", async () => {
    const notGguf = join(dir, "model.gguf");
    writeFileSync(notGguf, "<html>404 Not Found</html>");
    const tiny = join(dir, "tiny.gguf");
    writeFileSync(tiny, "GG");
    for (const path of [notGguf, tiny]) {
      const error = await engineError(createLlamaReporter({ modelPath: path, threads: 2, gpu: false }));
      expect(error.code).toBe("model_invalid");
      expect(error.retryable).toBe(false);
    }
  });

  test("a truncated GGUF passes the magic check, then llama.cpp's refusal → model_invalid", async () => {
    const truncated = join(dir, "truncated.gguf");
    writeFileSync(truncated, (await Bun.file(modelPath).bytes()).slice(0, 600_000));
    const error = await engineError(createLlamaReporter({ modelPath: truncated, threads: 2, gpu: false }));
    expect(error.code).toBe("model_invalid");
    expect(error.message).toContain("truncated.gguf");
  });
});

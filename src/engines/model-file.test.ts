import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configuredModelState } from "../models/catalogue.ts";
import { checkModelFile, configuredModel, modelFile } from "./model-file.ts";
import { engineError } from "../../test/support/engines.ts";

const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "verbatim-model-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LLM = "llm/stories260K.gguf";
const noAbsolutePath = /(^|[\s'"(=])\//;

describe("configuredModel", () => {
  test("a shipped model is named as configured and carries the catalogue's size and sha256", () => {
    const model = configuredModel(dir, LLM);
    expect(model).toMatchObject({ path: join(dir, LLM), name: LLM, modelsDir: dir, expected: { bytes: 1_185_376 } });
    expect(model.expected!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a firm's own model, or one given by an absolute path, is named by its file name and checked for being there only", () => {
    expect(configuredModel(dir, "mine/own.gguf")).toEqual({ path: join(dir, "mine/own.gguf"), name: "mine/own.gguf", modelsDir: dir });
    expect(configuredModel(dir, "/opt/models/own.gguf")).toEqual({ path: "/opt/models/own.gguf", name: "own.gguf", modelsDir: dir });
    expect(modelFile("/opt/models/own.gguf")).toEqual({ path: "/opt/models/own.gguf", name: "own.gguf" });
  });
});

describe("checkModelFile", () => {
  const models = join(dir, "models");
  mkdirSync(join(models, "llm"), { recursive: true });
  const installed = join(models, LLM);

  test("missing: model_missing, named as configured, the directory only in the detail", async () => {
    const error = await engineError(checkModelFile(configuredModel(models, LLM), "LLM"));
    expect(error).toMatchObject({ code: "model_missing", retryable: false });
    expect(error.message).toBe(`The LLM model ${LLM} is not installed: the file does not exist or is not a file.`);
    expect(error.detail).toContain(`is not in ${models}`);
    expect((await engineError(checkModelFile(modelFile(models), "LLM"))).code).toBe("model_missing"); // a directory
  });

  test("the catalogue's file passes; a different size or checksum is model_invalid, never naming an absolute path", async () => {
    copyFileSync(join(ROOT, "models", LLM), installed);
    expect(await checkModelFile(configuredModel(models, LLM), "LLM")).toBe(1_185_376);
    const bytes = readFileSync(installed);
    writeFileSync(installed, bytes.subarray(0, 1000));
    const short = await engineError(checkModelFile(configuredModel(models, LLM), "LLM"));
    expect(short.code).toBe("model_invalid");
    expect(short.message).toContain(`The LLM model ${LLM} has 1000 bytes, expected 1185376`);
    expect(short.message).not.toMatch(noAbsolutePath);
    const flipped = Buffer.from(bytes);
    flipped[500]! ^= 1;
    writeFileSync(installed, flipped);
    const changed = await engineError(checkModelFile(configuredModel(models, LLM), "LLM"));
    expect(changed.code).toBe("model_invalid");
    expect(changed.message).toContain("sha256");
    expect(changed.message).not.toMatch(noAbsolutePath);
    expect(await configuredModelState(models, LLM)).toBe("wrong_checksum"); // readiness sees the same
  });

  test("an empty file is model_invalid", async () => {
    const empty = join(dir, "empty.onnx");
    writeFileSync(empty, "");
    const error = await engineError(checkModelFile(modelFile(empty), "embedding"));
    expect(error.code).toBe("model_invalid");
    expect(error.message).toBe("The embedding model empty.onnx is empty.");
  });

  test("the sha256 is cached by size and modification time, for engines and readiness alike", async () => {
    const bytes = readFileSync(join(ROOT, "models", LLM));
    writeFileSync(installed, bytes);
    const when = Math.floor(Date.now() / 1000) - 60; // whole seconds: set again exactly below
    utimesSync(installed, when, when);
    expect(await configuredModelState(models, LLM)).toBe("ok");
    // Same size, same mtime, other bytes: the known hash is used (the file is not read again).
    const flipped = Buffer.from(bytes);
    flipped[500]! ^= 1;
    writeFileSync(installed, flipped);
    utimesSync(installed, when, when);
    expect(await checkModelFile(configuredModel(models, LLM), "LLM")).toBe(bytes.length);
    // A new mtime: hashed again, and the change is seen.
    utimesSync(installed, when, when + 5);
    expect((await engineError(checkModelFile(configuredModel(models, LLM), "LLM"))).code).toBe("model_invalid");
  });
});

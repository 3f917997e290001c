import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCatalogue, verifyModelFile, type CatalogueEntry } from "./catalogue.ts";

const root = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "verbatim-models-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const content = "model bytes";
const entry: CatalogueEntry = {
  name: "t",
  kind: "llm",
  path: "llm/t.gguf",
  bytes: content.length,
  sha256: new Bun.CryptoHasher("sha256").update(content).digest("hex"),
  url: null,
  default: false,
  real: false,
  stand_in: false,
  profiles: [],
};

test("a model file is ok only with the catalogue's size and sha256", async () => {
  expect(await verifyModelFile(dir, entry)).toBe("missing");
  mkdirSync(join(dir, "llm"), { recursive: true });
  writeFileSync(join(dir, entry.path), content + "!");
  expect(await verifyModelFile(dir, entry)).toBe("wrong_size");
  writeFileSync(join(dir, entry.path), content.toUpperCase());
  expect(await verifyModelFile(dir, entry)).toBe("wrong_checksum");
  writeFileSync(join(dir, entry.path), content);
  expect(await verifyModelFile(dir, entry)).toBe("ok");
});

test("the shipped catalogue parses and names each default model once", async () => {
  const models = await readCatalogue(join(root, "models/catalogue.json"));
  const defaults = models.filter((m) => m.default);
  expect(new Set(defaults.map((m) => m.name)).size).toBe(defaults.length);
  expect(defaults.map((m) => m.kind)).toEqual(expect.arrayContaining(["whisper", "vad", "llm"]));
});

test("every production model pins its size and sha256 (a download can bring no more, and nothing else passes)", async () => {
  const models = await readCatalogue(join(root, "models/catalogue.json"));
  const production = models.filter((m) => m.real && m.url !== null);
  expect(production.length).toBeGreaterThanOrEqual(14);
  for (const model of production) {
    expect({ name: model.name, bytes: model.bytes, sha256: model.sha256 }).toEqual({ name: model.name, bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(model.source).toBeTruthy();
  }
});

test("install-models refuses a source file whose checksum is wrong and leaves nothing behind", async () => {
  const shared = join(dir, "shared");
  const target = join(dir, "installed");
  mkdirSync(join(shared, "llm"), { recursive: true });
  writeFileSync(join(shared, "llm/stories260K.gguf"), "not the real model");
  const run = Bun.spawnSync(
    [process.execPath, join(root, "scripts/install-models.ts"), "--models-dir", target, "--shared", shared, "stories260K"],
    { stdout: "pipe", stderr: "pipe" },
  );
  expect(run.exitCode).toBe(1);
  expect(run.stderr.toString()).toMatch(/(size|checksum) mismatch/);
  expect(await Bun.file(join(target, "llm/stories260K.gguf")).exists()).toBe(false);
  expect(await Bun.file(join(target, "llm/stories260K.gguf.partial")).exists()).toBe(false);
});

test("the shipped development models are marked as stand-ins; the real VAD is not", async () => {
  const { standInModels } = await import("./catalogue.ts");
  expect(standInModels(["whisper/ggml-tiny-random.bin", "llm/stories260K.gguf", "vad/silero_vad.onnx", "/opt/models/firm-large-v3.bin", null])).toEqual([
    "whisper/ggml-tiny-random.bin",
    "llm/stories260K.gguf",
  ]);
});

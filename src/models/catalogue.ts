import { createReadStream, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { isAbsolute, join } from "node:path";
import { z } from "zod";

export const catalogueEntry = z.object({
  name: z.string(),
  kind: z.string(),
  path: z.string(),
  bytes: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  url: z.url().nullable(),
  /** When set, url is a gzipped tarball (an npm registry tarball, say) and the model is this member of it. */
  archive_member: z.string().optional(),
  default: z.boolean(),
  real: z.boolean(),
  /** A development stand-in: its transcripts or reports are not meaningful (the service says so). */
  stand_in: z.boolean().default(false),
});

export const catalogueSchema = z.object({ comment: z.string().optional(), models: z.array(catalogueEntry) });

export type CatalogueEntry = z.infer<typeof catalogueEntry>;

export async function readCatalogue(path: string): Promise<CatalogueEntry[]> {
  return catalogueSchema.parse(await Bun.file(path).json()).models;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export type ModelFileState = "ok" | "missing" | "wrong_size" | "wrong_checksum";

/** The size and sha256 a model file must have: its catalogue entry's, for the models we ship. */
export interface ExpectedModelFile {
  bytes: number;
  sha256: string;
}

/**
 * The one check of a model file, for the engines (engines/model-file.ts) and readiness alike:
 * it is there as a plain file, and when its expected size and sha256 are known, it has them.
 * A malformed model can abort a native engine outright (sherpa-onnx does), so files are checked
 * before any engine loads them. `bytes` is the file's size (0 when missing).
 */
export async function inspectModelFile(path: string, expected?: ExpectedModelFile): Promise<{ state: ModelFileState; bytes: number }> {
  let size: number;
  let mtimeMs: number;
  try {
    const info = statSync(path);
    if (!info.isFile()) return { state: "missing", bytes: 0 };
    ({ size, mtimeMs } = info);
  } catch {
    return { state: "missing", bytes: 0 };
  }
  if (!expected) return { state: "ok", bytes: size };
  if (size !== expected.bytes) return { state: "wrong_size", bytes: size };
  const sha256 = await cachedSha256(path, size, mtimeMs);
  return { state: sha256 === expected.sha256.toLowerCase() ? "ok" : "wrong_checksum", bytes: size };
}

/** Checks a model file against its catalogue entry. */
export async function verifyModelFile(modelsDir: string, entry: CatalogueEntry): Promise<ModelFileState> {
  return (await inspectModelFile(join(modelsDir, entry.path), entry)).state;
}

// Model files are large (a whisper model is 75 MB to 1.6 GB) and /readyz checks them on every
// call: hash a file again only when its size or modification time changed.
const hashes = new Map<string, { size: number; mtimeMs: number; sha256: string }>();

async function cachedSha256(path: string, size: number, mtimeMs: number): Promise<string> {
  const known = hashes.get(path);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.sha256;
  const sha256 = await sha256File(path);
  hashes.set(path, { size, mtimeMs, sha256 });
  return sha256;
}

import shipped from "../../models/catalogue.json";

/** The catalogue as shipped, carried inside the executable. */
export const SHIPPED_CATALOGUE: CatalogueEntry[] = catalogueSchema.parse(shipped).models;

/** The catalogue entry of a model file named by its path in the models directory, if it is one we ship. */
export function catalogueEntryForPath(path: string): CatalogueEntry | undefined {
  return SHIPPED_CATALOGUE.find((entry) => entry.path === path);
}

/** Where a configured model is: named inside the models directory, or by an absolute path. */
export function configuredModelPath(modelsDir: string, name: string): string {
  return isAbsolute(name) ? name : join(modelsDir, name);
}

/**
 * A configured model, named inside the models directory or by an absolute path: checked against
 * the catalogue when it is one we ship, else only for being there (a firm's own model, which its
 * engine checks as it loads).
 */
export async function configuredModelState(modelsDir: string, name: string): Promise<ModelFileState> {
  return (await inspectModelFile(configuredModelPath(modelsDir, name), catalogueEntryForPath(name))).state;
}

/** The configured model names that are development stand-ins (catalogue stand_in). */
export function standInModels(names: readonly (string | null)[]): string[] {
  return names.filter((name): name is string => name !== null && catalogueEntryForPath(name)?.stand_in === true);
}

export const STAND_IN_WARNING = "development stand-in models: transcripts and reports are not meaningful";

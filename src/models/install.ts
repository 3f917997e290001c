/**
 * Installing a catalogue model into the models directory: copied from a local folder when it has
 * the file (../shared/models in development, a folder carried into an air-gapped site), else
 * downloaded from the entry's URL, resuming a partial file left by an interrupted download
 * (HTTP Range). Every file is checked (size, sha256, else the publisher's sha1, else lock.json)
 * before it is renamed into place; a file that fails the check is removed, never installed.
 * Downloads use Bun's fetch, which honours the site's HTTPS_PROXY: this is the operator's own tool.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { expectedFor, hashFile, inspectModelFile, type CatalogueEntry, type ExpectedModelFile } from "./catalogue.ts";
import { recordInLock } from "./lock.ts";

export interface InstallOptions {
  /** Folders to take the file from before downloading it (relative paths as in the catalogue). */
  localDirs?: string[];
  /** Told of download progress: bytes so far and the total when known. */
  onProgress?(done: number, total: number | null): void;
  /** Whole-download deadline; default 6 hours (a 3 GB model on a slow line). */
  timeoutMs?: number;
}

export type InstallOutcome = "present" | "copied" | "downloaded" | "resumed";

export class InstallFailed extends Error {}

/** Checks the file at `partial` against what the entry must be, and records a first sha256 in the lock. */
async function checkAndLock(modelsDir: string, entry: CatalogueEntry, expected: ExpectedModelFile, partial: string): Promise<void> {
  const { state, bytes } = await inspectModelFile(partial, expected);
  if (state !== "ok") {
    rmSync(partial, { force: true });
    const what = state === "wrong_size" ? `size mismatch: ${bytes} bytes, expected ${expected.bytes}` : "checksum mismatch with the catalogue";
    throw new InstallFailed(`${entry.name}: ${what}; the file was removed, nothing installed`);
  }
  // No sha256 from the catalogue nor from an earlier lock: this first verified download pins it.
  if (!expected.sha256) recordInLock(modelsDir, entry.path, bytes, await hashFile(partial, "sha256"));
}

/**
 * The most a download may bring when the catalogue gives no size for it (a firm's own entry, an
 * archive without archive_bytes): the largest model listed is under 5 GB, and a source that never
 * stops must not fill the disk.
 */
export const MAX_UNSIZED_DOWNLOAD_BYTES = 16 * 1024 ** 3;

/**
 * Downloads `url` into `partial`, continuing what is there when the server honours Range. More
 * than `maxBytes` (the catalogue's size) is refused: the file is removed and nothing is installed.
 */
async function download(url: string, partial: string, options: InstallOptions, maxBytes: number): Promise<"downloaded" | "resumed"> {
  const tooLarge = (bytes: number) => {
    rmSync(partial, { force: true });
    return new InstallFailed(`${url} sent more than the ${maxBytes} bytes expected (${bytes}); the file was removed, nothing installed`);
  };
  let have = existsSync(partial) ? statSync(partial).size : 0;
  if (have > maxBytes) {
    rmSync(partial, { force: true });
    have = 0;
  }
  const response = await fetch(url, {
    headers: have ? { Range: `bytes=${have}-` } : {},
    signal: AbortSignal.timeout(options.timeoutMs ?? 6 * 3600_000),
    redirect: "follow",
  });
  if (!response.ok || !response.body) throw new InstallFailed(`${url} answered HTTP ${response.status}`);
  const resumed = have > 0 && response.status === 206;
  const length = Number(response.headers.get("content-length") ?? NaN);
  const total = Number.isFinite(length) ? length + (resumed ? have : 0) : null;
  if (total !== null && total > maxBytes) {
    await response.body.cancel();
    throw tooLarge(total);
  }
  const out = createWriteStream(partial, { flags: resumed ? "a" : "w", mode: 0o644 });
  let done = resumed ? have : 0;
  let overflow = false;
  try {
    for await (const chunk of response.body) {
      done += chunk.byteLength;
      if (done > maxBytes) {
        overflow = true;
        break;
      }
      if (!out.write(chunk)) await new Promise((resolve) => out.once("drain", resolve));
      options.onProgress?.(done, total);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  if (overflow) throw tooLarge(done);
  if (total !== null && done !== total) throw new InstallFailed(`${url}: the connection ended after ${done} of ${total} bytes; run the install again to resume`);
  return resumed ? "resumed" : "downloaded";
}

/**
 * Takes `member` out of the tarball at `archive` into `target`, with the system's tar, which
 * finds the compression itself (the npm registry's .tgz, sherpa-onnx's .tar.bz2).
 */
async function takeMember(archive: string, member: string, target: string): Promise<void> {
  const tar = Bun.spawn(["tar", "-xOf", archive, member], { stdout: Bun.file(target), stderr: "pipe" });
  if ((await tar.exited) !== 0) {
    rmSync(target, { force: true });
    throw new InstallFailed(`${member} could not be taken out of the downloaded archive: ${(await new Response(tar.stderr).text()).trim()}`);
  }
}

export async function installModel(modelsDir: string, entry: CatalogueEntry, options: InstallOptions = {}): Promise<InstallOutcome> {
  const target = join(modelsDir, entry.path);
  const expected = expectedFor(modelsDir, entry);
  if ((await inspectModelFile(target, expected)).state === "ok" && existsSync(target)) return "present";
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial`;

  const local = (options.localDirs ?? []).map((dir) => join(dir, entry.path)).find((path) => existsSync(path));
  let outcome: InstallOutcome;
  if (local) {
    await copyFile(local, partial);
    outcome = "copied";
  } else if (!entry.url) {
    throw new InstallFailed(`${entry.name} has no public download (a synthetic stand-in): give the folder that holds it (../shared/models)`);
  } else if (entry.archive_member) {
    const archive = `${partial}.archive`;
    try {
      outcome = await download(entry.url, archive, options, entry.archive_bytes ?? MAX_UNSIZED_DOWNLOAD_BYTES);
      await takeMember(archive, entry.archive_member, partial);
    } finally {
      rmSync(archive, { force: true });
    }
  } else {
    outcome = await download(entry.url, partial, options, expected.bytes ?? MAX_UNSIZED_DOWNLOAD_BYTES);
  }
  await checkAndLock(modelsDir, entry, expected, partial);
  renameSync(partial, target);
  return outcome;
}

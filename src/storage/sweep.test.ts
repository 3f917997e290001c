import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { meetingDir, uploadsTmpDir } from "./paths.ts";
import { sweepOrphans } from "./sweep.ts";

const HOUR = 3600 * 1000;
let scratch: string;

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "verbatim-sweep-"));
});
afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** An upload in tmp/, an orphan meeting folder and a kept one, in `storageDir`; `ageMs` old. */
function leftovers(storageDir: string, ageMs: number) {
  const upload = join(uploadsTmpDir(storageDir), "upload-1.part");
  const orphan = meetingDir(storageDir, "orphan");
  const kept = meetingDir(storageDir, "kept");
  for (const dir of [uploadsTmpDir(storageDir), orphan, kept]) mkdirSync(dir, { recursive: true });
  writeFileSync(upload, "x");
  const then = new Date(Date.now() - ageMs);
  for (const path of [upload, orphan, kept]) utimesSync(path, then, then);
  return { upload, orphan, kept };
}

test("the storage in the data dir (one node): every partial upload and orphan folder goes at once", () => {
  const dataDir = join(scratch, "data");
  const { upload, orphan, kept } = leftovers(dataDir, 0);
  expect(sweepOrphans({ dataDir, storageDir: dataDir }, (id) => id === "kept", HOUR)).toEqual({ tmpFiles: 1, meetingDirs: 1 });
  expect([existsSync(upload), existsSync(orphan), existsSync(kept)]).toEqual([false, false, true]);
});

test("a storage dir of its own may be shared: what another node may be writing now stays, what is stale goes", () => {
  const dataDir = join(scratch, "data");
  const storageDir = join(scratch, "shared");
  mkdirSync(dataDir);
  const fresh = leftovers(storageDir, 0);
  expect(sweepOrphans({ dataDir, storageDir }, (id) => id === "kept", HOUR)).toEqual({ tmpFiles: 0, meetingDirs: 0 });
  expect([existsSync(fresh.upload), existsSync(fresh.orphan)]).toEqual([true, true]);
  const stale = leftovers(storageDir, 2 * HOUR);
  expect(sweepOrphans({ dataDir, storageDir }, (id) => id === "kept", HOUR)).toEqual({ tmpFiles: 1, meetingDirs: 1 });
  expect([existsSync(stale.upload), existsSync(stale.orphan), existsSync(stale.kept)]).toEqual([false, false, true]);
});

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataDirInUse, lockDataDir, lockExistingDataDir } from "./data-dir-lock.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tries the lock from another process, as a second server would. */
function lockedElsewhere(): boolean {
  const script = `import { lockDataDir } from ${JSON.stringify(join(import.meta.dir, "data-dir-lock.ts"))};
try { lockDataDir(${JSON.stringify(dir)}); console.log("got it"); } catch (e) { console.log(e.constructor.name); }`;
  const result = Bun.spawnSync([process.execPath, "-e", script]);
  return result.stdout.toString().trim() === "DataDirInUse";
}

test("a held lock refuses another process at once, and is free again once released", () => {
  const lock = lockDataDir(dir);
  expect(lockedElsewhere()).toBe(true);
  lock.release();
  expect(lockedElsewhere()).toBe(false);
});

test("in the same process a second lock is refused too", () => {
  const lock = lockDataDir(dir);
  expect(() => lockDataDir(dir)).toThrow(DataDirInUse);
  lock.release();
});

test("the lock of an existing data dir is taken without creating anything, and refused while a server holds it", () => {
  const fresh = mkdtempSync(join(tmpdir(), "verbatim-lock-fresh-"));
  try {
    expect(lockExistingDataDir(fresh)).toBeUndefined();
    expect(readdirSync(fresh)).toEqual([]);
    const held = lockDataDir(fresh);
    expect(() => lockExistingDataDir(fresh)).toThrow(DataDirInUse);
    held.release();
    const again = lockExistingDataDir(fresh)!;
    expect(() => lockDataDir(fresh)).toThrow(DataDirInUse);
    again.release();
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

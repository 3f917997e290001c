import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataDirInUse, lockDataDir } from "./data-dir-lock.ts";

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

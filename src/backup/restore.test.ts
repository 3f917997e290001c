import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { swapContents } from "./restore.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-swap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setUp(name: string) {
  const target = join(dir, name);
  mkdirSync(join(target, "meetings", "old"), { recursive: true });
  writeFileSync(join(target, "verbatim.db"), "old database");
  writeFileSync(join(target, "serve.lock"), "");
  const staging = join(target, ".restore-x");
  mkdirSync(join(staging, "meetings", "new"), { recursive: true });
  mkdirSync(join(staging, "oauth"));
  writeFileSync(join(staging, "verbatim.db"), "new database");
  return { target, staging };
}

test("the swap puts the staged entries in place of the old ones, and removes the old ones", () => {
  const { target, staging } = setUp("ok");
  swapContents(target, staging);
  expect(readdirSync(target).sort()).toEqual([".restore-x", "meetings", "oauth", "verbatim.db"]);
  expect(readdirSync(staging)).toEqual([]);
  expect(readFileSync(join(target, "verbatim.db"), "utf8")).toBe("new database");
  expect(readdirSync(join(target, "meetings"))).toEqual(["new"]);
});

test("a rename that fails midway is undone: the target keeps its previous contents", () => {
  for (const failAt of [1, 3, 4, 5]) {
    const { target, staging } = setUp(`fail-${failAt}`);
    let calls = 0;
    const rename = (from: string, to: string) => {
      if (++calls === failAt) throw new Error("EXDEV: cross-device link not permitted");
      renameSync(from, to);
    };
    expect(() => swapContents(target, staging, rename)).toThrow("EXDEV");
    expect({ failAt, entries: readdirSync(target).sort() }).toEqual({ failAt, entries: [".restore-x", "meetings", "serve.lock", "verbatim.db"] });
    expect(readFileSync(join(target, "verbatim.db"), "utf8")).toBe("old database");
    expect(readdirSync(join(target, "meetings"))).toEqual(["old"]);
    expect(readdirSync(staging).sort()).toEqual(["meetings", "oauth", "verbatim.db"]);
  }
});

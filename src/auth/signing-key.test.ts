// Where the token-signing key lives (issue 22): the data dir on SQLite; on PostgreSQL the storage
// dir every node mounts, adopting a key the data dir already had.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadOrCreateSigningKey, signingKeyDirOf, signingKeyPath } from "./signing-key.ts";

const root = mkdtempSync(join(tmpdir(), "verbatim-signing-key-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("on SQLite, or with the storage in the data dir, the key's folder is the data dir", () => {
  const dataDir = join(root, "sqlite-data");
  expect(signingKeyDirOf({ dataDir, storageDir: join(root, "elsewhere"), shared: false })).toBe(dataDir);
  expect(signingKeyDirOf({ dataDir, storageDir: dataDir, shared: true })).toBe(dataDir);
  expect(existsSync(join(root, "elsewhere"))).toBe(false);
});

test("on PostgreSQL a node's existing key is adopted by the storage dir once; a second node's key never replaces it", async () => {
  const storageDir = join(root, "shared");
  const first = join(root, "node-1");
  const second = join(root, "node-2");
  const own = await loadOrCreateSigningKey(first);
  await loadOrCreateSigningKey(second);
  expect(signingKeyDirOf({ dataDir: first, storageDir, shared: true })).toBe(storageDir);
  expect(readFileSync(signingKeyPath(storageDir), "utf8")).toBe(readFileSync(signingKeyPath(first), "utf8"));
  expect(statSync(signingKeyPath(storageDir)).mode & 0o777).toBe(0o600);
  expect(signingKeyDirOf({ dataDir: second, storageDir, shared: true })).toBe(storageDir);
  expect((await loadOrCreateSigningKey(storageDir)).kid).toBe(own.kid);
});

// The token-signing key across API nodes (issue 22): on PostgreSQL it lives in the storage dir every
// node mounts, so a token minted by `admin token create` from any node's data dir verifies on every
// API node, whatever data dir each has. On SQLite it stays in the data dir.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signingKeyPath } from "../../src/auth/signing-key.ts";
import { runCli, startServer, type TestServer } from "../helpers/server.ts";
import { onPostgres } from "../support/postgres.ts";

const storageDir = mkdtempSync(join(tmpdir(), "verbatim-shared-storage-"));
let a: TestServer;
let b: TestServer | undefined;

beforeAll(async () => {
  a = await startServer({ args: onPostgres ? ["--role", "api", "--storage-dir", storageDir] : ["--storage-dir", storageDir] });
  if (onPostgres) b = await startServer({ args: ["--role", "api", "--storage-dir", storageDir, "--database-url", a.databaseUrl!] });
});
afterAll(async () => {
  await b?.stop();
  await a.stop();
  rmSync(storageDir, { recursive: true, force: true });
});

test.skipIf(!onPostgres)("a token minted from a third data dir verifies on both API nodes: the key is the storage dir's", async () => {
  expect(existsSync(signingKeyPath(storageDir))).toBe(true);
  expect(existsSync(signingKeyPath(a.dataDir))).toBe(false);
  expect(existsSync(signingKeyPath(b!.dataDir))).toBe(false);
  const operatorDir = mkdtempSync(join(tmpdir(), "verbatim-operator-"));
  try {
    const minted = await runCli(["admin", "token", "create", "--email", "admin@localhost", "--scopes", "all", "--json", "--data-dir", operatorDir, "--storage-dir", storageDir, "--database-url", a.databaseUrl!]);
    expect(minted.code).toBe(0);
    const token = (JSON.parse(minted.stdout) as { access_token: string }).access_token;
    for (const node of [a, b!]) {
      const me = await node.api("/api/v1/me", { key: token });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { user: { email: string } }).user.email).toBe("admin@localhost");
    }
  } finally {
    rmSync(operatorDir, { recursive: true, force: true });
  }
});

test.skipIf(onPostgres)("on SQLite the key stays in the data dir, even with a storage dir of its own", async () => {
  expect(existsSync(signingKeyPath(a.dataDir))).toBe(true);
  expect(existsSync(signingKeyPath(storageDir))).toBe(false);
  const minted = await a.admin("token", "create", "--email", "admin@localhost", "--scopes", "all");
  expect(minted.code).toBe(0);
  expect((await a.api("/api/v1/me", { key: minted.stdout.trim() })).status).toBe(200);
});

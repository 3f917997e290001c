// Retention sweeps run while the service runs, not only at start (issue 8, item 5).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ args: ["--sweep-interval", "1"] });
});
afterAll(async () => {
  await server.stop();
});

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

test("an idempotency key older than 24 hours is removed by the periodic sweep", async () => {
  const db = server.db();
  const user = db.$client.query("SELECT id FROM users LIMIT 1").get() as { id: string };
  const insert = db.$client.query("INSERT INTO idempotency_keys (user_id, operation, key, status, created_at) VALUES (?, 'POST /v1/meetings', ?, 'done', ?)");
  insert.run(user.id, "old-key", Date.now() - 25 * 3600 * 1000);
  insert.run(user.id, "fresh-key", Date.now());
  const keys = () => (db.$client.query("SELECT key FROM idempotency_keys ORDER BY key").all() as { key: string }[]).map((r) => r.key);
  expect(keys()).toEqual(["fresh-key", "old-key"]);
  await until("the old key to go", () => !keys().includes("old-key"));
  expect(keys()).toEqual(["fresh-key"]);
});

test("a partial upload nobody wrote to for over an hour is removed; a recent one stays", async () => {
  const tmp = join(server.dataDir, "tmp");
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "upload-stale.part"), "abandoned");
  writeFileSync(join(tmp, "upload-live.part"), "being written");
  const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
  utimesSync(join(tmp, "upload-stale.part"), twoHoursAgo, twoHoursAgo);
  await until("the stale upload to go", () => !readdirSync(tmp).includes("upload-stale.part"));
  expect(readdirSync(tmp)).toEqual(["upload-live.part"]);
});

test("expired token revocations are dropped; live ones stay", async () => {
  const db = server.db();
  const insert = db.$client.query("INSERT INTO revoked_tokens (jti, expires_at, revoked_at) VALUES (?, ?, ?)");
  insert.run("expired-jti", Date.now() - 1000, Date.now() - 5000);
  insert.run("live-jti", Date.now() + 3600_000, Date.now());
  const jtis = () => (db.$client.query("SELECT jti FROM revoked_tokens ORDER BY jti").all() as { jti: string }[]).map((r) => r.jti);
  await until("the expired revocation to go", () => !jtis().includes("expired-jti"));
  expect(jtis()).toEqual(["live-jti"]);
});

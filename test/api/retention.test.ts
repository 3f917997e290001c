// Retention sweeps run while the service runs, not only at start (issue 8, item 5).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { queryExec, queryRow, queryRows } from "../helpers/query.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ args: ["--sweep-interval", "1"] });
});
afterAll(async () => {
  await server.stop();
});

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

test("an idempotency key older than 24 hours is removed by the periodic sweep", async () => {
  const user = (await queryRow<{ id: string }>(server, sql`SELECT id FROM users LIMIT 1`))!;
  const insert = (key: string, createdAt: number) =>
    queryExec(server, sql`INSERT INTO idempotency_keys (user_id, operation, key, status, created_at) VALUES (${user.id}, 'POST /v1/meetings', ${key}, 'done', ${createdAt})`);
  await insert("old-key", Date.now() - 25 * 3600 * 1000);
  await insert("fresh-key", Date.now());
  const keys = async () => (await queryRows<{ key: string }>(server, sql`SELECT key FROM idempotency_keys ORDER BY key`)).map((r) => r.key);
  expect(await keys()).toEqual(["fresh-key", "old-key"]);
  await until("the old key to go", async () => !(await keys()).includes("old-key"));
  expect(await keys()).toEqual(["fresh-key"]);
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
  const insert = (jti: string, expiresAt: number, revokedAt: number) =>
    queryExec(server, sql`INSERT INTO revoked_tokens (jti, expires_at, revoked_at) VALUES (${jti}, ${expiresAt}, ${revokedAt})`);
  await insert("expired-jti", Date.now() - 1000, Date.now() - 5000);
  await insert("live-jti", Date.now() + 3600_000, Date.now());
  const jtis = async () => (await queryRows<{ jti: string }>(server, sql`SELECT jti FROM revoked_tokens ORDER BY jti`)).map((r) => r.jti);
  await until("the expired revocation to go", async () => !(await jtis()).includes("expired-jti"));
  expect(await jtis()).toEqual(["live-jti"]);
});

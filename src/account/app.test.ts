import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count } from "drizzle-orm";
import { createApiKey, createApiKeyLookup } from "../auth/api-key-store.ts";
import { apiKeys } from "../auth/table.ts";
import { createUser, findUserByEmail, findUserById, listUsers } from "../auth/user-store.ts";
import { openDatabase, type Db } from "../db/client.ts";
import { connOf, type DbConn } from "../db/conn.ts";
import { applyMigrations } from "../db/migrate.ts";
import { jobs } from "../jobs/table.ts";
import { meetings } from "../meetings/table.ts";
import { meetingDir } from "../storage/paths.ts";
import { AccountBusy, accountApp } from "./app.ts";

let dataDir: string;
let db: Db;
let conn: DbConn;
let app: ReturnType<typeof accountApp>;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "verbatim-account-delete-"));
  db = openDatabase(join(dataDir, "verbatim.db"));
  applyMigrations(db.$client);
  conn = connOf(db);
  app = accountApp({ conn, dataDir, now: () => 42 });
});

afterEach(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const deleteAccount = (userId: string, options: { refuseUnfinishedJobs: boolean }) => app.delete({ userId }, options);

function addMeeting(userId: string, id: string, jobStatus: string): void {
  db.$client
    .prepare("INSERT INTO meetings (id, user_id, title, status, created_at, updated_at) VALUES (?, ?, 'Title', 'queued', 1, 1)")
    .run(id, userId);
  db.$client
    .prepare("INSERT INTO jobs (id, user_id, kind, status, channel, meeting_id, created_at) VALUES (?, ?, 'meeting_processing', ?, 'api', ?, 1)")
    .run(`job_${id}`, userId, jobStatus, id);
  mkdirSync(meetingDir(dataDir, id), { recursive: true });
  writeFileSync(join(meetingDir(dataDir, id), "recording"), "audio");
}

function addLedgerLine(userId: string): void {
  db.$client
    .prepare(
      "INSERT INTO ledger_lines (id, user_id, period, channel, operation, unit_rate, currency, cost, paid_wallet, paid_on_demand, written_off, created_at) VALUES ('led_1', ?, '2026-11', 'api', 'transcription', 100, 'USD', 5, 5, 0, 0, 1)",
    )
    .run(userId);
}

test("an account without ledger lines loses every row, its user row included, and its meetings' folders", async () => {
  const user = await createUser(db, { email: "gone@example.com", name: "Gone", plan: "pro" });
  const kept = await createUser(db, { email: "kept@example.com", plan: "free" });
  addMeeting(user.id, "m_gone", "completed");
  addMeeting(kept.id, "m_kept", "completed");
  await createApiKey(conn, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  expect(await deleteAccount(user.id, { refuseUnfinishedJobs: true })).toEqual({ meetings: 1, ledgerLinesKept: 0 });
  expect(db.$client.query("SELECT count(*) AS n FROM users WHERE id = ?").get(user.id)).toEqual({ n: 0 });
  for (const table of [meetings, jobs]) expect(await db.select({ userId: table.userId }).from(table)).toEqual([{ userId: kept.id }]);
  expect(await db.select({ n: count() }).from(apiKeys)).toEqual([{ n: 0 }]);
  expect(existsSync(meetingDir(dataDir, "m_gone"))).toBe(false);
  expect(existsSync(meetingDir(dataDir, "m_kept"))).toBe(true);
  expect((await findUserByEmail(db, "kept@example.com"))?.id).toBe(kept.id);
});

test("ledger lines keep a tombstone that no lookup finds and that gets no new rows", async () => {
  const user = await createUser(db, { email: "billed@example.com", name: "Billed Person", plan: "pro" });
  const { key } = await createApiKey(conn, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  addLedgerLine(user.id);
  expect(await deleteAccount(user.id, { refuseUnfinishedJobs: true })).toEqual({ meetings: 0, ledgerLinesKept: 1 });
  expect(db.$client.query("SELECT email, name, password_hash, deleted_at FROM users WHERE id = ?").get(user.id)).toEqual({
    email: `deleted:${user.id}`,
    name: null,
    password_hash: null,
    deleted_at: 42,
  });
  expect(db.$client.query("SELECT count(*) AS n FROM ledger_lines WHERE user_id = ?").get(user.id)).toEqual({ n: 1 });
  expect(await findUserById(db, user.id)).toBeUndefined();
  expect(await findUserByEmail(db, `deleted:${user.id}`)).toBeUndefined();
  expect((await listUsers(conn)).map((u) => u.id)).not.toContain(user.id);
  expect(await createApiKeyLookup(conn).find(key)).toBeUndefined();
  // A request that authenticated before the deletion cannot write for the account after it.
  expect(() => addMeeting(user.id, "m_late", "queued")).toThrow("the account was deleted");
  await expect(createApiKey(conn, { userId: user.id, name: "late", scopes: ["read:meetings"] })).rejects.toThrow("the account was deleted");
  // The email is free for a new account.
  expect((await createUser(db, { email: "billed@example.com", plan: "free" })).id).not.toBe(user.id);
});

test("with refuseUnfinishedJobs, a queued or processing job refuses the deletion and nothing is deleted", async () => {
  const user = await createUser(db, { email: "busy@example.com", plan: "pro" });
  addMeeting(user.id, "m_done", "completed");
  addMeeting(user.id, "m_running", "processing");
  await expect(deleteAccount(user.id, { refuseUnfinishedJobs: true })).rejects.toThrow(AccountBusy);
  expect(db.$client.query("SELECT count(*) AS n FROM meetings WHERE user_id = ?").get(user.id)).toEqual({ n: 2 });
  expect((await findUserById(db, user.id))?.email).toBe("busy@example.com");
  expect(existsSync(meetingDir(dataDir, "m_done"))).toBe(true);
  // Without a running server (the caller holds the data dir's lock), the jobs are only rows.
  expect((await deleteAccount(user.id, { refuseUnfinishedJobs: false })).meetings).toBe(2);
  expect(await db.select({ n: count() }).from(jobs)).toEqual([{ n: 0 }]);
});

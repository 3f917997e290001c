import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, sql } from "drizzle-orm";
import { createApiKey, createApiKeyLookup } from "../auth/api-key-store.ts";
import { apiKeys } from "../auth/table.ts";
import { addUser, getUserByEmail, getUserById, listUsers } from "../auth/user-store.ts";
import { run, type DbConn } from "../db/conn.ts";
import { exec, row } from "../db/sql.ts";
import { jobs } from "../jobs/table.ts";
import { meetings } from "../meetings/table.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { meetingDir } from "../storage/paths.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { AccountBusy, accountApp } from "./app.ts";

let dataDir: string;
let database: TempDatabase;
let conn: DbConn;
let app: ReturnType<typeof accountApp>;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "verbatim-account-delete-"));
  database = tempDatabase("account-delete");
  conn = database.conn;
  app = accountApp({ conn, storage: localDiskStorage(dataDir), now: () => 42 });
});

afterEach(async () => {
  await database.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

const deleteAccount = (userId: string, options: { refuseUnfinishedJobs: boolean }) => app.delete({ userId }, options);

async function addMeeting(userId: string, id: string, jobStatus: string): Promise<void> {
  await run(conn, async (q) => {
    await exec(q, sql`INSERT INTO meetings (id, user_id, title, status, created_at, updated_at) VALUES (${id}, ${userId}, 'Title', 'queued', 1, 1)`);
    await exec(q, sql`INSERT INTO jobs (id, user_id, kind, status, channel, meeting_id, created_at) VALUES (${`job_${id}`}, ${userId}, 'meeting_processing', ${jobStatus}, 'api', ${id}, 1)`);
  });
  mkdirSync(meetingDir(dataDir, id), { recursive: true });
  writeFileSync(join(meetingDir(dataDir, id), "recording"), "audio");
}

function addLedgerLine(userId: string): Promise<void> {
  return run(conn, (q) =>
    exec(
      q,
      sql`INSERT INTO ledger_lines (id, user_id, period, channel, operation, unit_rate, currency, cost, paid_wallet, paid_on_demand, written_off, created_at) VALUES ('led_1', ${userId}, '2026-11', 'api', 'transcription', 100, 'USD', 5, 5, 0, 0, 1)`,
    ),
  );
}

/**
 * The database's refusal of a write: drizzle wraps a failed statement's error (on PostgreSQL
 * always, on SQLite for raw SQL), so the trigger's message is the error's cause or its own.
 */
async function refusal(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => undefined,
    (failed: Error) => failed,
  );
  return String((error?.cause as Error | undefined)?.message ?? error?.message);
}

/** The first row of a raw statement on the test database. */
const rowOf = (query: ReturnType<typeof sql>) => run(conn, (q) => row(q, query));

test("an account without ledger lines loses every row, its user row included, and its meetings' folders", async () => {
  const user = await addUser(conn, { email: "gone@example.com", name: "Gone", plan: "pro" });
  const kept = await addUser(conn, { email: "kept@example.com", plan: "free" });
  await addMeeting(user.id, "m_gone", "completed");
  await addMeeting(kept.id, "m_kept", "completed");
  await createApiKey(conn, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  expect(await deleteAccount(user.id, { refuseUnfinishedJobs: true })).toEqual({ meetings: 1, ledgerLinesKept: 0 });
  expect(await rowOf(sql`SELECT count(*) AS n FROM users WHERE id = ${user.id}`)).toEqual({ n: 0 });
  for (const table of [meetings, jobs]) expect(await run(conn, (q) => q.select({ userId: table.userId }).from(table))).toEqual([{ userId: kept.id }]);
  expect(await run(conn, (q) => q.select({ n: count() }).from(apiKeys))).toEqual([{ n: 0 }]);
  expect(existsSync(meetingDir(dataDir, "m_gone"))).toBe(false);
  expect(existsSync(meetingDir(dataDir, "m_kept"))).toBe(true);
  expect((await getUserByEmail(conn, "kept@example.com"))?.id).toBe(kept.id);
});

test("ledger lines keep a tombstone that no lookup finds and that gets no new rows", async () => {
  const user = await addUser(conn, { email: "billed@example.com", name: "Billed Person", plan: "pro" });
  const { key } = await createApiKey(conn, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  await addLedgerLine(user.id);
  expect(await deleteAccount(user.id, { refuseUnfinishedJobs: true })).toEqual({ meetings: 0, ledgerLinesKept: 1 });
  expect(await rowOf(sql`SELECT email, name, password_hash, deleted_at FROM users WHERE id = ${user.id}`)).toEqual({
    email: `deleted:${user.id}`,
    name: null,
    password_hash: null,
    deleted_at: 42,
  });
  expect(await rowOf(sql`SELECT count(*) AS n FROM ledger_lines WHERE user_id = ${user.id}`)).toEqual({ n: 1 });
  expect(await getUserById(conn, user.id)).toBeUndefined();
  expect(await getUserByEmail(conn, `deleted:${user.id}`)).toBeUndefined();
  expect((await listUsers(conn)).map((u) => u.id)).not.toContain(user.id);
  expect(await createApiKeyLookup(conn).find(key)).toBeUndefined();
  // A request that authenticated before the deletion cannot write for the account after it.
  expect(await refusal(addMeeting(user.id, "m_late", "queued"))).toContain("the account was deleted");
  expect(await refusal(createApiKey(conn, { userId: user.id, name: "late", scopes: ["read:meetings"] }))).toContain("the account was deleted");
  // The email is free for a new account.
  expect((await addUser(conn, { email: "billed@example.com", plan: "free" })).id).not.toBe(user.id);
});

test("with refuseUnfinishedJobs, a queued or processing job refuses the deletion and nothing is deleted", async () => {
  const user = await addUser(conn, { email: "busy@example.com", plan: "pro" });
  await addMeeting(user.id, "m_done", "completed");
  await addMeeting(user.id, "m_running", "processing");
  await expect(deleteAccount(user.id, { refuseUnfinishedJobs: true })).rejects.toThrow(AccountBusy);
  expect(await rowOf(sql`SELECT count(*) AS n FROM meetings WHERE user_id = ${user.id}`)).toEqual({ n: 2 });
  expect((await getUserById(conn, user.id))?.email).toBe("busy@example.com");
  expect(existsSync(meetingDir(dataDir, "m_done"))).toBe(true);
  // Without a running server (the caller holds the data dir's lock), the jobs are only rows.
  expect((await deleteAccount(user.id, { refuseUnfinishedJobs: false })).meetings).toBe(2);
  expect(await run(conn, (q) => q.select({ n: count() }).from(jobs))).toEqual([{ n: 0 }]);
});

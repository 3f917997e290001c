// The audit trail's store over a real database (SQLite, or PostgreSQL on that run): entries written
// and read back in both orders with their filters, the append-only triggers, and the retention purge
// as the only way an entry goes.
import { expect, test } from "bun:test";
import { eq, sql, type SQL } from "drizzle-orm";
import { run, runTx } from "../db/conn.ts";
import { exec } from "../db/sql.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import { AUDIT_ACTIONS } from "./actions.ts";
import { appendAuditEntries, exportAuditEntries, listAuditEntries, purgeAuditEntries, type AuditRow } from "./store.ts";
import { auditEntries, auditPurgeCutoff } from "./table.ts";
import { actorEntry, adminCliEntry, systemEntry, type AuditEntry } from "./types.ts";

let database: TempDatabase;
freshDatabaseEachTest("audit-store", (created) => {
  database = created;
});

const T0 = Date.parse("2026-03-01T10:00:00Z");
const DAY = 24 * 3600 * 1000;
const ana = { account: { userId: "usr_ana" }, channel: "api" as const, credential: { type: "api_key" as const, id: "key_1" }, clientAddress: () => "203.0.113.9" };

function entry(action: string, accountId = "usr_ana", resourceId: string | null = "mtg_1"): AuditEntry {
  return { ...actorEntry({ ...ana, account: { userId: accountId } }, action, resourceId ? { type: "meeting", id: resourceId } : null) };
}

/** The database's refusal of a statement (drizzle wraps the driver's error), or "done". */
const refused = (statement: SQL) => run(database.conn, (q) => exec(q, statement)).then(() => "done", (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message));

async function all(): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  for await (const row of exportAuditEntries(database.conn, {})) rows.push(row);
  return rows;
}

test("actorEntry names who, through what and from where; systemEntry and adminCliEntry name no user", () => {
  expect(actorEntry(ana, AUDIT_ACTIONS.transcriptRead, { type: "meeting", id: "mtg_1" }, { format: "srt" })).toEqual({
    accountId: "usr_ana",
    actorUserId: "usr_ana",
    credentialType: "api_key",
    credentialId: "key_1",
    channel: "api",
    action: "transcript.read",
    resourceType: "meeting",
    resourceId: "mtg_1",
    clientAddress: "203.0.113.9",
    detail: { format: "srt" },
  });
  expect(systemEntry("usr_ana", AUDIT_ACTIONS.retentionMeetingDeleted, { type: "meeting", id: "mtg_2" })).toMatchObject({ actorUserId: null, credentialType: "system", channel: "system", clientAddress: null });
  expect(adminCliEntry("usr_ana", AUDIT_ACTIONS.tokenMinted, null, "root")).toMatchObject({ actorUserId: null, credentialType: "admin_cli", credentialId: "root", channel: "cli" });
});

test("entries are written with their own time and read back newest first, filtered and paged by keyset", async () => {
  await appendAuditEntries(
    database.conn,
    [
      { ...entry(AUDIT_ACTIONS.transcriptRead), at: T0 },
      { ...entry(AUDIT_ACTIONS.meetingUpdated), at: T0 + 1000 },
      { ...entry(AUDIT_ACTIONS.signInFailed, "usr_ana", null), at: T0 + 2000 },
      { ...entry(AUDIT_ACTIONS.transcriptRead, "usr_ben", "mtg_9"), at: T0 + 3000 },
      { ...entry(AUDIT_ACTIONS.reportRead, "usr_ana", "mtg_2") },
    ],
    T0 + 4000,
  );
  const first = await listAuditEntries(database.conn, { accountId: "usr_ana" }, { limit: 2 });
  expect(first.data.map((row) => [row.action, row.at])).toEqual([
    ["report.read", T0 + 4000],
    ["auth.sign_in_failed", T0 + 2000],
  ]);
  expect(first.next).toEqual([T0 + 2000, first.data[1]!.id]);
  const second = await listAuditEntries(database.conn, { accountId: "usr_ana" }, { limit: 2, after: first.next! });
  expect(second.data.map((row) => row.action)).toEqual(["meeting.updated", "transcript.read"]);
  expect(second.next).toBeNull();
  expect(second.data[1]).toMatchObject({ accountId: "usr_ana", actorUserId: "usr_ana", credentialId: "key_1", clientAddress: "203.0.113.9", resourceId: "mtg_1", detail: null });

  const kinds = await listAuditEntries(database.conn, { accountId: "usr_ana", kinds: ["transcript", "report"] }, { limit: 10 });
  expect(kinds.data.map((row) => row.action)).toEqual(["report.read", "transcript.read"]);
  const byResource = await listAuditEntries(database.conn, { accountId: "usr_ana", resourceId: "mtg_1" }, { limit: 10 });
  expect(byResource.data.map((row) => row.action)).toEqual(["meeting.updated", "transcript.read"]);
  const byDates = await listAuditEntries(database.conn, { accountId: "usr_ana", since: T0 + 1000, until: T0 + 2000 }, { limit: 10 });
  expect(byDates.data.map((row) => row.action)).toEqual(["meeting.updated"]);
  const everyone = await listAuditEntries(database.conn, {}, { limit: 10 });
  expect(everyone.data.map((row) => row.accountId)).toContain("usr_ben");
});

test("a detail keeps small scalars only: long strings are cut, objects dropped", async () => {
  const detail = { format: "srt", count: 3, redacted: true, none: null, long: "x".repeat(5000), nested: { text: "secret" } as never };
  await appendAuditEntries(database.conn, [{ ...entry(AUDIT_ACTIONS.transcriptRead), detail }], T0);
  const [row] = await all();
  expect(row!.detail).toEqual({ format: "srt", count: 3, redacted: true, none: null, long: "x".repeat(200) });
});

test("the export reads oldest first in batches, from a time, for one account", async () => {
  const entries = Array.from({ length: 25 }, (_, i) => ({ ...entry(AUDIT_ACTIONS.transcriptRead, i % 2 ? "usr_ben" : "usr_ana", `mtg_${i}`), at: T0 + i }));
  await appendAuditEntries(database.conn, entries, T0);
  const ids: string[] = [];
  for await (const row of exportAuditEntries(database.conn, { accountId: "usr_ana", since: T0 + 4 }, 3)) ids.push(row.resourceId!);
  expect(ids).toEqual(["mtg_4", "mtg_6", "mtg_8", "mtg_10", "mtg_12", "mtg_14", "mtg_16", "mtg_18", "mtg_20", "mtg_22", "mtg_24"]);
});

test("the database refuses to change an entry or delete a fresh one", async () => {
  await appendAuditEntries(database.conn, [entry(AUDIT_ACTIONS.transcriptRead)], T0);
  expect(await refused(sql`UPDATE audit_entries SET resource_id = 'mtg_other'`)).toContain("audit entries are append-only");
  expect(await refused(sql`DELETE FROM audit_entries`)).toContain("audit entries are append-only");
  expect(await refused(sql`DELETE FROM audit_entries WHERE id > 0`)).toContain("audit entries are append-only");
  if (database.url) expect(await refused(sql`TRUNCATE audit_entries`)).toContain("audit entries are append-only");
  expect((await all()).map((row) => row.resourceId)).toEqual(["mtg_1"]);
});

test("the purge deletes only the entries older than its cutoff, and leaves no cutoff behind for anyone else", async () => {
  await appendAuditEntries(
    database.conn,
    [
      { ...entry(AUDIT_ACTIONS.transcriptRead, "usr_ana", "mtg_old"), at: T0 - 401 * DAY },
      { ...entry(AUDIT_ACTIONS.transcriptRead, "usr_ana", "mtg_new"), at: T0 - 399 * DAY },
    ],
    T0,
  );
  expect(await purgeAuditEntries(database.conn, T0 - 400 * DAY)).toBe(1);
  expect((await all()).map((row) => row.resourceId)).toEqual(["mtg_new"]);
  expect(await purgeAuditEntries(database.conn, T0 - 400 * DAY)).toBe(0);
  const [cutoff] = await run(database.conn, async (q) => await q.select().from(auditPurgeCutoff).where(eq(auditPurgeCutoff.id, 1)));
  expect(cutoff?.cutoff).toBe(0);
  // With the purge over, the row it left is as undeletable as any.
  expect(await refused(sql`DELETE FROM audit_entries`)).toContain("audit entries are append-only");
  // A purge whose transaction fails part-way deletes nothing and leaves the cutoff at 0.
  await appendAuditEntries(database.conn, [{ ...entry(AUDIT_ACTIONS.transcriptRead, "usr_ana", "mtg_older"), at: T0 - 500 * DAY }], T0);
  await expect(
    runTx(database.conn, async (q) => {
      await q.insert(auditPurgeCutoff).values({ id: 1, cutoff: T0 }).onConflictDoUpdate({ target: auditPurgeCutoff.id, set: { cutoff: T0 } });
      await q.delete(auditEntries);
      throw new Error("stopped");
    }),
  ).rejects.toThrow("stopped");
  expect((await all()).map((row) => row.resourceId).sort()).toEqual(["mtg_new", "mtg_older"]);
});

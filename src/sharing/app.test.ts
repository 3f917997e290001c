// Sharing a meeting with a colleague (issue 25 item 7): the use cases over a real database, on SQLite
// and (VERBATIM_TEST_DATABASE_URL) PostgreSQL.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { accountApp } from "../account/app.ts";
import { actorEntry, type AuditEntry } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { addUser } from "../auth/user-store.ts";
import { run, type DbConn } from "../db/conn.ts";
import { exec, row } from "../db/sql.ts";
import { deleteMeeting } from "../meetings/delete.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { testActor } from "../../test/support/actor.ts";
import { ShareRefused, sharingApp } from "./app.ts";

const MEETING = "6f0c1c1e-1111-4222-8333-444455556666";
const OTHER_MEETING = "6f0c1c1e-1111-4222-8333-444455557777";

let database: TempDatabase;
let conn: DbConn;
let dataDir: string;
let entries: AuditEntry[];
let app: ReturnType<typeof sharingApp>;
let owner: Actor;
let colleague: Actor;
let stranger: Actor;

beforeEach(async () => {
  database = tempDatabase("sharing");
  conn = database.conn;
  dataDir = mkdtempSync(join(tmpdir(), "verbatim-sharing-"));
  entries = [];
  app = sharingApp({ conn, clock: { now: () => 1_000 }, audit: { record: (entry) => void entries.push(entry), flush: async () => {} } });
  owner = testActor((await addUser(conn, { email: "owner@firm.example", plan: "pro" })).id, "webapp", "pro");
  colleague = testActor((await addUser(conn, { email: "colleague@firm.example", plan: "free" })).id, "webapp");
  stranger = testActor((await addUser(conn, { email: "stranger@firm.example", plan: "free" })).id, "webapp");
  for (const id of [MEETING, OTHER_MEETING]) {
    await run(conn, (q) => exec(q, sql`INSERT INTO meetings (id, user_id, title, status, created_at, updated_at) VALUES (${id}, ${owner.account.userId}, 'Ward 4', 'completed', 1, 1)`));
  }
});

afterEach(async () => {
  await database.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

const shareCount = async () => Number((await run(conn, (q) => row<{ n: number }>(q, sql`SELECT count(*) AS n FROM meeting_shares`)))?.n ?? 0);

describe("sharing a meeting", () => {
  test("the owner shares by email (any case); the colleague may view, a third user nothing", async () => {
    expect(await app.accessFor(owner, MEETING)).toBe("owner");
    expect(await app.accessFor(colleague, MEETING)).toBe("none");
    const shareId = await app.share(owner, MEETING, "  Colleague@FIRM.example ", "view");
    expect(shareId).toStartWith("shr_");
    expect(await app.accessFor(colleague, MEETING)).toBe("view");
    expect(await app.accessFor(colleague, OTHER_MEETING)).toBe("none");
    expect(await app.accessFor(stranger, MEETING)).toBe("none");
    expect(await app.shares(owner, MEETING)).toEqual([{ id: shareId, recipientUserId: colleague.account.userId, email: "colleague@firm.example", name: null, permission: "view", createdAt: 1_000 }]);
    const shared = await app.sharedWithMe(colleague);
    expect(shared.map((m) => [m.meetingId, m.title, m.ownerEmail, m.permission])).toEqual([[MEETING, "Ward 4", "owner@firm.example", "view"]]);
    expect(await app.sharedWithMe(stranger)).toEqual([]);
    expect(await app.sharedWithMe(owner)).toEqual([]);
  });

  test("sharing again changes the permission of the one share; view_and_correct is correct access", async () => {
    const first = await app.share(owner, MEETING, "colleague@firm.example", "view");
    const second = await app.share(owner, MEETING, "colleague@firm.example", "view_and_correct");
    expect(second).toBe(first);
    expect(await shareCount()).toBe(1);
    expect(await app.accessFor(colleague, MEETING)).toBe("correct");
  });

  test("an unknown email and a disabled account are refused alike; the owner's own address is refused", async () => {
    const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error) => (error instanceof ShareRefused ? error.reason : String(error)));
    expect(await refusal(app.share(owner, MEETING, "nobody@firm.example", "view"))).toBe("unknown");
    await run(conn, (q) => exec(q, sql`UPDATE users SET disabled_at = 5 WHERE id = ${stranger.account.userId}`));
    expect(await refusal(app.share(owner, MEETING, "stranger@firm.example", "view"))).toBe("unknown");
    expect(await refusal(app.share(owner, MEETING, "owner@firm.example", "view"))).toBe("self");
    expect(await shareCount()).toBe(0);
  });

  test("only the owner shares, lists and revokes: a colleague, even one who may correct, gets 404", async () => {
    await app.share(owner, MEETING, "colleague@firm.example", "view_and_correct");
    const status = (promise: Promise<unknown>) => promise.then(() => 200, (error) => error.status);
    expect(await status(app.share(colleague, MEETING, "stranger@firm.example", "view"))).toBe(404);
    expect(await status(app.shares(colleague, MEETING))).toBe(404);
    const [share] = await app.shares(owner, MEETING);
    expect(await status(app.revoke(colleague, MEETING, share!.id))).toBe(404);
    expect(await status(app.revoke(owner, OTHER_MEETING, share!.id))).toBe(404);
    await app.revoke(owner, MEETING, share!.id);
    expect(await app.accessFor(colleague, MEETING)).toBe("none");
    expect(await status(app.revoke(owner, MEETING, share!.id))).toBe(404);
  });

  test("the colleague's grant acts in the owner's account, and the audit trail names the colleague", async () => {
    const shareId = await app.share(owner, MEETING, "colleague@firm.example", "view");
    const grant = (await app.grantFor(colleague, MEETING))!;
    expect(grant.access).toBe("view");
    expect(grant.sharedBy).toBe("owner@firm.example");
    expect(grant.actor.account).toEqual({ userId: owner.account.userId, plan: "pro" });
    const read = actorEntry(grant.actor, "transcript.read", { type: "meeting", id: MEETING });
    expect([read.accountId, read.actorUserId]).toEqual([owner.account.userId, colleague.account.userId]);
    expect((await app.grantFor(owner, MEETING))!.actor).toBe(owner);
    expect(await app.grantFor(stranger, MEETING)).toBeNull();
    await app.revoke(owner, MEETING, shareId);
    expect(entries.map((e) => [e.action, e.accountId, e.actorUserId, e.detail?.recipient])).toEqual([
      ["meeting.shared", owner.account.userId, owner.account.userId, colleague.account.userId],
      ["meeting.share_revoked", owner.account.userId, owner.account.userId, colleague.account.userId],
    ]);
  });

  test("a disabled owner's shares open nothing", async () => {
    await app.share(owner, MEETING, "colleague@firm.example", "view");
    await run(conn, (q) => exec(q, sql`UPDATE users SET disabled_at = 5 WHERE id = ${owner.account.userId}`));
    expect(await app.accessFor(colleague, MEETING)).toBe("none");
    expect(await app.sharedWithMe(colleague)).toEqual([]);
  });
});

describe("deletions take the shares with them", () => {
  test("deleting the meeting (the one deletion path) deletes its shares", async () => {
    await app.share(owner, MEETING, "colleague@firm.example", "view");
    await app.share(owner, OTHER_MEETING, "colleague@firm.example", "view");
    await deleteMeeting({ conn, storage: localDiskStorage(dataDir), wal: { afterDeletion() {} }, cancelJobs() {} }, owner.account.userId, MEETING);
    expect(await shareCount()).toBe(1);
    expect((await app.sharedWithMe(colleague)).map((m) => m.meetingId)).toEqual([OTHER_MEETING]);
  });

  test("deleting the colleague's account deletes the shares made to it", async () => {
    await app.share(owner, MEETING, "colleague@firm.example", "view");
    await app.share(owner, MEETING, "stranger@firm.example", "view");
    // A ledger line keeps the colleague's user row as a tombstone: the shares must still go.
    await run(conn, (q) =>
      exec(q, sql`INSERT INTO ledger_lines (id, user_id, period, channel, operation, unit_rate, currency, cost, paid_wallet, paid_on_demand, written_off, created_at) VALUES ('led_1', ${colleague.account.userId}, '2026-11', 'api', 'transcription', 100, 'USD', 5, 5, 0, 0, 1)`),
    );
    await accountApp({ conn, storage: localDiskStorage(dataDir), now: () => 42 }).delete({ userId: colleague.account.userId }, { refuseUnfinishedJobs: true });
    expect((await app.shares(owner, MEETING)).map((s) => s.email)).toEqual(["stranger@firm.example"]);
    expect(await shareCount()).toBe(1);
  });

  test("deleting the owner's account deletes the shares of its meetings", async () => {
    await app.share(owner, MEETING, "colleague@firm.example", "view");
    await accountApp({ conn, storage: localDiskStorage(dataDir), now: () => 42 }).delete({ userId: owner.account.userId }, { refuseUnfinishedJobs: true });
    expect(await shareCount()).toBe(0);
    expect(await app.sharedWithMe(colleague)).toEqual([]);
  });
});

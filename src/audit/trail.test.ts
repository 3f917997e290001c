// The batched trail: recording never waits for the database, batches are written on the interval
// or when full, a failed write keeps its entries, a full queue makes the caller wait rather than
// lose, and stop writes what is left.
import { expect, test } from "bun:test";
import type { Conn } from "../db/conn.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import { AUDIT_ACTIONS } from "./actions.ts";
import { exportAuditEntries } from "./store.ts";
import { BatchedAuditTrail } from "./trail.ts";
import { systemEntry } from "./types.ts";

let database: TempDatabase;
freshDatabaseEachTest("audit-trail", (created) => {
  database = created;
});

let now = Date.parse("2026-03-01T10:00:00Z");
const clock = { now: () => now };
const read = (n: number) => systemEntry("usr_ana", AUDIT_ACTIONS.transcriptRead, { type: "meeting", id: `mtg_${n}` });

async function stored(): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of exportAuditEntries(database.conn, {})) ids.push(row.resourceId!);
  return ids;
}

test("entries wait in memory and are written together after the interval, each at the time it was recorded", async () => {
  const trail = new BatchedAuditTrail({ conn: database.conn, clock, intervalMs: 50, onError: () => {} });
  const at = now;
  expect(trail.record(read(1))).toBeUndefined();
  now += 10;
  trail.record(read(2));
  expect(trail.queued).toBe(2);
  expect(await stored()).toEqual([]);
  await Bun.sleep(200);
  expect(trail.queued).toBe(0);
  expect(await stored()).toEqual(["mtg_1", "mtg_2"]);
  const times: number[] = [];
  for await (const row of exportAuditEntries(database.conn, {})) times.push(row.at);
  expect(times).toEqual([at, at + 10]);
});

test("a full batch is written without waiting for the interval", async () => {
  const trail = new BatchedAuditTrail({ conn: database.conn, clock, intervalMs: 60_000, batchSize: 5, onError: () => {} });
  for (let n = 0; n < 5; n++) trail.record(read(n));
  await Bun.sleep(100);
  expect((await stored()).length).toBe(5);
  trail.record(read(5));
  await trail.stop();
  expect((await stored()).length).toBe(6);
});

test("a failed write keeps its entries for the next; a full queue answers the write for the caller to await", async () => {
  let failing = true;
  const errors: unknown[] = [];
  // The database as the trail sees it, failing its writes while `failing` (a disk full, a lost connection).
  const flaky = new Proxy(database.conn, {
    get(target, key, receiver) {
      if (failing && key === "kind") throw new Error("database unavailable");
      return Reflect.get(target, key, receiver);
    },
  }) as Conn;
  const trail = new BatchedAuditTrail({ conn: flaky, clock, intervalMs: 20, batchSize: 10, maxQueued: 3, onError: (error) => errors.push(error) });
  trail.record(read(1));
  trail.record(read(2));
  await Bun.sleep(60);
  expect(errors.length).toBeGreaterThan(0);
  expect(trail.queued).toBe(2);
  const waited = trail.record(read(3));
  expect(waited).toBeInstanceOf(Promise);
  await expect(waited!).rejects.toThrow("database unavailable");
  failing = false;
  expect(trail.record(read(4))).toBeInstanceOf(Promise);
  await trail.stop();
  expect(await stored()).toEqual(["mtg_1", "mtg_2", "mtg_3", "mtg_4"]);
});

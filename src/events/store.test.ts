// The async face of events/ against a temp database: an event recorded in a transaction that rolls
// back is gone with it; fan-out bookkeeping; a meeting's events purged with their content.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { addUser } from "../auth/user-store.ts";
import { withTx } from "../db/conn.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { deleteMeetingEvents, eventPayload, eventsToFanOut, markFannedOut, recordEvent } from "./store.ts";

let database: TempDatabase;
let userId: string;
const now = Date.parse("2026-11-24T12:00:00Z");

beforeEach(async () => {
  database = tempDatabase("events");
  userId = (await addUser(database.conn, { email: `owner-${crypto.randomUUID()}@firm.example`, plan: "pro" })).id;
});
afterEach(() => database.remove());

test("an event recorded in a transaction that rolls back does not exist; one committed does, with its whole envelope", async () => {
  let rolledBack = "";
  await expect(
    withTx(database.conn, async (tx) => {
      rolledBack = (await recordEvent(tx, { userId, type: "processing.completed", now, object: { id: "job_1" } })).id;
      throw new Error("the use case refused");
    }),
  ).rejects.toThrow("the use case refused");
  expect(await eventPayload(database.conn, rolledBack)).toBeUndefined();

  const kept = await withTx(database.conn, (tx) => recordEvent(tx, { userId, type: "processing.completed", now, object: { id: "job_2" } }));
  expect(kept).toMatchObject({ object: "event", type: "processing.completed", livemode: true, data: { object: { id: "job_2" } } });
  expect(JSON.parse((await eventPayload(database.conn, kept.id))!)).toEqual(kept);
});

test("events wait for fan-out oldest first until marked", async () => {
  const first = await recordEvent(database.conn, { userId, type: "processing.completed", now, object: {} });
  const second = await recordEvent(database.conn, { userId, type: "document.generated", now: now + 1, object: {} });
  expect((await eventsToFanOut(database.conn, 10)).map((e) => e.id)).toEqual([first.id, second.id]);
  expect((await eventsToFanOut(database.conn, 1)).map((e) => e.id)).toEqual([first.id]);
  await markFannedOut(database.conn, first.id, now);
  expect((await eventsToFanOut(database.conn, 10)).map((e) => e.id)).toEqual([second.id]);
});

test("deleting a meeting's events removes them, and only them", async () => {
  const about = await recordEvent(database.conn, { userId, type: "processing.completed", now, object: {}, meetingId: "mtg_1" });
  const other = await recordEvent(database.conn, { userId, type: "processing.completed", now, object: {}, meetingId: "mtg_2" });
  await deleteMeetingEvents(database.conn, "mtg_1");
  expect(await eventPayload(database.conn, about.id)).toBeUndefined();
  expect(await eventPayload(database.conn, other.id)).toBeDefined();
});

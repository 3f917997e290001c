// Feedback's use case against a real store: recorded as received; a meeting named must be the account's.
import { expect, test } from "bun:test";
import { count } from "drizzle-orm";
import type { Actor } from "../auth/actor.ts";
import { run } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { meetings } from "../meetings/table.ts";
import { actingAndOther } from "../../test/support/actor.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import { feedbackApp } from "./app.ts";
import { feedback } from "./table.ts";

let database: TempDatabase;
let actor: Actor;
let other: Actor;
const NOW = Date.parse("2026-11-10T12:00:00Z");

freshDatabaseEachTest("feedback", async (created) => {
  database = created;
  [actor, other] = await actingAndOther(created.conn);
});

test("create: recorded as received, with the meeting it is about when that meeting is the account's", async () => {
  const app = feedbackApp({ conn: database.conn, clock: { now: () => NOW } });
  const id = crypto.randomUUID();
  await run(database.conn, (q) =>
    q
      .insert(meetings)
      .values({ id, userId: actor.account.userId, title: "M", titleSource: "user", status: "completed", createdAt: NOW, updatedAt: NOW, recordedAt: NOW, transcribeOnly: false, requestedLanguage: "en", language: "en", source: "upload", recordingType: "meeting" }),
  );
  const plain = await app.create(actor, { type: "bug", message: "It broke" });
  expect(plain).toMatchObject({ userId: actor.account.userId, type: "bug", message: "It broke", meetingId: null, status: "received", createdAt: NOW });
  const about = await app.create(actor, { type: "question", message: "Why?", meeting_id: id.toUpperCase() });
  expect(about.meetingId).toBe(id);
  // Another account's meeting is absent: 404, and nothing is recorded.
  const refused = await app.create(other, { type: "feedback", message: "Theirs", meeting_id: id }).catch((error) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).status).toBe(404);
  expect(await run(database.conn, (q) => q.select({ n: count() }).from(feedback))).toEqual([{ n: 2 }]);
});

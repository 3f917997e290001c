import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { describe, expect, test } from "bun:test";
import { createUser } from "../auth/user-store.ts";
import { findOrCreateClient } from "../clients/service.ts";
import type { Db } from "../db/client.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { meetingProcessingJob } from "./processing-job.ts";
import { listMeetings } from "./list-store.ts";
import { meetings, meetingTags, participants, reports, transcripts } from "./table.ts";


/** An account with `count` meetings, each with a client, tags, participants, a job, a transcript and a report. */
async function account(db: Db, email: string, count: number): Promise<string> {
  const user = await createUser(db, { email, name: null, plan: "pro" });
  const client = await findOrCreateClient(db, user.id, { name: "Acme" }, 1);
  for (let i = 0; i < count; i++) {
    const id = crypto.randomUUID();
    const at = 1_800_000_000_000 + i;
    await db
      .insert(meetings)
      .values({ id, userId: user.id, title: `M${i}`, titleSource: "user", status: "completed", createdAt: at, updatedAt: at, recordedAt: at, transcribeOnly: false, requestedLanguage: "en", language: "en", source: "upload", recordingType: "meeting", clientId: client.id });
    await db.insert(meetingTags).values([{ meetingId: id, tag: "a" }, { meetingId: id, tag: "b" }]);
    await db.insert(participants).values({ meetingId: id, name: "Ana", email: null, speakerLabels: ["SPEAKER_00"] });
    await enqueueJob(db, { userId: user.id, kind: meetingProcessingJob, firstStep: "decode", now: at, meetingId: id, payload: {} }, JOBS_TABLE_QUEUE);
    await db.insert(transcripts).values({ meetingId: id, language: "en", durationSeconds: 1, model: "m", speakers: [], segments: [], speakerTurns: [], createdAt: at });
    await db.insert(reports).values({ meetingId: id, title: "t", language: "en", markdown: "# t", structured: null, model: "m", createdAt: at, updatedAt: at });
  }
  return user.id;
}

/** Counts the SQL statements SQLite prepares while `run` runs. */
async function statements(db: Db, run: () => Promise<unknown>): Promise<number> {
  const client = db.$client;
  const prepare = client.prepare.bind(client);
  const query = client.query.bind(client);
  let count = 0;
  client.prepare = ((sql: string, ...rest: unknown[]) => (count++, (prepare as (...a: unknown[]) => unknown)(sql, ...rest))) as typeof client.prepare;
  client.query = ((sql: string) => (count++, query(sql))) as typeof client.query;
  try {
    await run();
  } finally {
    client.prepare = prepare;
    client.query = query;
  }
  return count;
}

describe("GET /v1/meetings rendering", () => {
  test("a page costs the same number of statements for 10 meetings as for 100", async () => {
    const temp = tempDatabase("list");
    const db = temp.db;
    const small = await account(db, "small@example.com", 10);
    const large = await account(db, "large@example.com", 100);
    let smallPage: Awaited<ReturnType<typeof listMeetings>> | undefined;
    let largePage: Awaited<ReturnType<typeof listMeetings>> | undefined;
    const forSmall = await statements(db, async () => (smallPage = await listMeetings(db, small, { limit: 100 } as never, "http://x/api")));
    const forLarge = await statements(db, async () => (largePage = await listMeetings(db, large, { limit: 100 } as never, "http://x/api")));
    expect(smallPage!.data).toHaveLength(10);
    expect(largePage!.data).toHaveLength(100);
    expect(forSmall).toBeGreaterThan(0);
    expect(forLarge).toBe(forSmall);
    expect(forLarge).toBeLessThanOrEqual(8);
    // Each meeting got its own related rows.
    const first = largePage!.data[0]!;
    expect(first.tags).toEqual(["a", "b"]);
    expect(first.participants).toHaveLength(1);
    expect(first.client?.name).toBe("Acme");
    expect(first.job?.meeting_id).toBe(first.id);
    expect(first.has_transcript).toBe(true);
    expect(first.summary?.title).toBe("t");
    await temp.remove();
  });
});

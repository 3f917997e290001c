import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { describe, expect, test } from "bun:test";
import { addUser } from "../auth/user-store.ts";
import { findOrCreateClient } from "../clients/service.ts";
import { run, type DbConn } from "../db/conn.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { meetingProcessingJob } from "./processing-job.ts";
import { meetingsPage } from "./list-store.ts";
import { meetings, meetingTags, participants, reports, transcripts } from "./table.ts";

/** An account with `count` meetings, each with a client, tags, participants, a job, a transcript and a report. */
async function account(conn: DbConn, email: string, count: number): Promise<string> {
  const user = await addUser(conn, { email, name: null, plan: "pro" });
  await run(conn, async (db) => {
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
  });
  return user.id;
}

/**
 * Counts the SQL statements sent while `body` runs: those SQLite prepares, or those the
 * PostgreSQL pool is asked to run (a statement outside a transaction goes through pool.query).
 */
async function statements(conn: DbConn, body: () => Promise<unknown>): Promise<number> {
  let count = 0;
  if (conn.dialect === "postgres") {
    const pool = conn.pool;
    const query = pool.query;
    pool.query = ((...args: unknown[]) => (count++, (query as (...a: unknown[]) => unknown).apply(pool, args))) as typeof pool.query;
    try {
      await body();
    } finally {
      pool.query = query;
    }
    return count;
  }
  const client = conn.sqlite;
  const prepare = client.prepare.bind(client);
  const query = client.query.bind(client);
  client.prepare = ((sql: string, ...rest: unknown[]) => (count++, (prepare as (...a: unknown[]) => unknown)(sql, ...rest))) as typeof client.prepare;
  client.query = ((sql: string) => (count++, query(sql))) as typeof client.query;
  try {
    await body();
  } finally {
    client.prepare = prepare;
    client.query = query;
  }
  return count;
}

describe("GET /v1/meetings rendering", () => {
  test("a page costs the same number of statements for 10 meetings as for 100", async () => {
    const temp = tempDatabase("list");
    const conn = temp.conn;
    const small = await account(conn, "small@example.com", 10);
    const large = await account(conn, "large@example.com", 100);
    let smallPage: Awaited<ReturnType<typeof meetingsPage>> | undefined;
    let largePage: Awaited<ReturnType<typeof meetingsPage>> | undefined;
    const forSmall = await statements(conn, async () => (smallPage = await meetingsPage(conn, small, { limit: 100 } as never, "http://x/api")));
    const forLarge = await statements(conn, async () => (largePage = await meetingsPage(conn, large, { limit: 100 } as never, "http://x/api")));
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

describe("the web list's orders (issue 25)", () => {
  test("newest and oldest recorded, and title without case: page after page, no meeting twice or missed; a cursor of another order is refused", async () => {
    const temp = tempDatabase("list-orders");
    const conn = temp.conn;
    const user = await addUser(conn, { email: "orders@example.com", name: null, plan: "pro" });
    const made: [string, number][] = [["beta", 3], ["Alpha", 5], ["delta", 1], ["Charlie", 4], ["echo", 2]];
    await run(conn, async (db) => {
      for (const [title, recorded] of made) {
        const at = 1_800_000_000_000 + recorded;
        await db.insert(meetings).values({ id: crypto.randomUUID(), userId: user.id, title, titleSource: "user", status: "completed", createdAt: 1_800_000_000_000 - recorded, updatedAt: at, recordedAt: at, transcribeOnly: false, requestedLanguage: "en", language: "en", source: "upload", recordingType: "meeting" });
      }
    });
    const walk = async (order: "newest" | "oldest" | "title") => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await meetingsPage(conn, user.id, { limit: 2, cursor } as never, "http://x/api", order);
        seen.push(...page.data.map((m) => m.title));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return seen;
    };
    expect(await walk("newest")).toEqual(["Alpha", "Charlie", "beta", "echo", "delta"]);
    expect(await walk("oldest")).toEqual(["delta", "echo", "beta", "Charlie", "Alpha"]);
    expect(await walk("title")).toEqual(["Alpha", "beta", "Charlie", "delta", "echo"]);
    // The API's order (created, newest first) is unchanged.
    expect((await meetingsPage(conn, user.id, { limit: 10 } as never, "http://x/api")).data.map((m) => m.title)).toEqual(["delta", "echo", "beta", "Charlie", "Alpha"]);
    const titleCursor = (await meetingsPage(conn, user.id, { limit: 2 } as never, "http://x/api", "title")).next_cursor!;
    await expect(meetingsPage(conn, user.id, { limit: 2, cursor: titleCursor } as never, "http://x/api", "newest")).rejects.toMatchObject({ code: "validation_error" });
    await expect(meetingsPage(conn, user.id, { limit: 2, cursor: "bm9wZQ" } as never, "http://x/api", "oldest")).rejects.toMatchObject({ code: "validation_error" });
    await temp.remove();
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { addUser } from "../auth/user-store.ts";
import { run, type Conn } from "../db/conn.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { claimNextJob, holdsStep, LEASE_MS, releaseAllLeases, releaseLease, renewLease } from "./claims-store.ts";
import { updateJob } from "./store.ts";
import { jobs } from "./table.ts";

const temps: TempDatabase[] = [];
afterAll(async () => {
  for (const t of temps) await t.remove();
});

/** A kind of the test's own: the queue serves whatever kinds it is given. */
const KIND = "test_kind";

function freshDb(name: string) {
  const temp = tempDatabase(`claims-${name}`);
  temps.push(temp);
  return temp;
}

async function queue(conn: Conn, userId: string, count: number, createdFrom = 1000) {
  const ids = Array.from({ length: count }, (_, i) => `job_${userId.slice(0, 6)}_${i}`);
  const rows = ids.map((id, i) => ({ id, userId, kind: KIND, status: "queued" as const, stage: "queued", progress: 0, channel: "api" as const, nextStep: "decode", createdAt: createdFrom + i }));
  await run(conn, async (q) => {
    for (let at = 0; at < rows.length; at += 100) await q.insert(jobs).values(rows.slice(at, at + 100));
  });
  return ids;
}

describe("claimNextJob", () => {
  test("two processes claiming 600 jobs from one database at once never get the same job", async () => {
    const temp = freshDb("race");
    const user = await addUser(temp.conn, { email: "race@example.com", name: null, plan: "pro" });
    const all = await queue(temp.conn, user.id, 600);
    // Each process opens the database itself: the SQLite file, or the PostgreSQL database.
    const opened = onPostgres
      ? `new (await import(${JSON.stringify(join(import.meta.dir, "../db/pg-conn.ts"))})).PgConn(${JSON.stringify(temp.url)}, { poolSize: 2 })`
      : `(await import(${JSON.stringify(join(import.meta.dir, "../db/conn.ts"))})).openConn(${JSON.stringify(temp.path)})`;
    if (!onPostgres) temp.db.$client.close();
    const barrier = join(mkdtempSync(join(tmpdir(), "verbatim-claims-")), "ready");
    const script = (owner: string) => `
      import { appendFileSync, readFileSync } from "node:fs";
      import { sql } from "drizzle-orm";
      import { run } from ${JSON.stringify(join(import.meta.dir, "../db/conn.ts"))};
      import { row } from ${JSON.stringify(join(import.meta.dir, "../db/sql.ts"))};
      import { claimNextJob } from ${JSON.stringify(join(import.meta.dir, "claims-store.ts"))};
      const db = ${opened};
      // Both start together, however long each took to boot (a loaded machine can take seconds):
      // each says it is ready, then waits for the other.
      appendFileSync(${JSON.stringify(barrier)}, ${JSON.stringify(owner)} + "\\n");
      while (readFileSync(${JSON.stringify(barrier)}, "utf8").trim().split("\\n").length < 2) await Bun.sleep(1);
      const got = [];
      for (;;) {
        const job = await claimNextJob(db, { owner: ${JSON.stringify(owner)}, kinds: ["test_kind"], now: Date.now(), lastServed: new Map() });
        if (!job) {
          // Lost every try to the other process this time (one account: both want its oldest job);
          // stop only when nothing is left unclaimed.
          if ((await run(db, (q) => row(q, sql\`SELECT count(*) AS n FROM jobs WHERE lease_owner IS NULL\`))).n === 0) break;
          await Bun.sleep(1);
          continue;
        }
        got.push(job.id);
        // A pause now and then, so a process the scheduler of a busy machine starts late still
        // meets the other mid-way: the race is on every claim, not on who starts first.
        if (got.length % 10 === 0) await Bun.sleep(1);
      }
      console.log(JSON.stringify(got));
      await db.close();`;
    const runs = ["sched_a", "sched_b"].map((owner) => Bun.spawn([process.execPath, "-e", script(owner)], { stdout: "pipe", stderr: "inherit" }));
    const outputs = await Promise.all(runs.map(async (p) => z.array(z.string()).parse(JSON.parse(await new Response(p.stdout).text()))));
    const claimed = outputs.flat();
    expect(claimed.length).toBe(all.length);
    expect(new Set(claimed).size).toBe(all.length);
    // Both really competed (each got a share), so the test exercised the race.
    expect(Math.min(...outputs.map((o) => o.length))).toBeGreaterThan(0);
  });

  test("a claimed job is nobody else's until its lease runs out unrenewed, or is released", async () => {
    const { conn } = freshDb("lease");
    const user = await addUser(conn, { email: "lease@example.com", name: null, plan: "pro" });
    const [only] = await queue(conn, user.id, 1);
    const t0 = 1_000_000;
    const claim = async (owner: string, now: number) => (await claimNextJob(conn, { owner, kinds: [KIND], now, lastServed: new Map() }))?.id;
    expect(await claim("a", t0)).toBe(only);
    expect(await claim("b", t0 + 1)).toBeUndefined();
    expect(await renewLease(conn, only!, "a", t0 + LEASE_MS - 1)).toBe(true);
    expect(await claim("b", t0 + LEASE_MS + 1)).toBeUndefined(); // renewed: still a's
    expect(await claim("b", t0 + 2 * LEASE_MS)).toBe(only); // a stopped renewing: b takes over
    expect(await renewLease(conn, only!, "a", t0 + 2 * LEASE_MS)).toBe(false); // and a knows it lost it
    await releaseLease(conn, only!, "b");
    expect(await claim("c", t0 + 2 * LEASE_MS)).toBe(only);
  });

  test("round-robin: the account served longest ago (or never) goes next, whatever came first", async () => {
    const { conn } = freshDb("fair");
    const busy = await addUser(conn, { email: "busy@example.com", name: null, plan: "pro" });
    const quiet = await addUser(conn, { email: "quiet@example.com", name: null, plan: "pro" });
    const busyJobs = await queue(conn, busy.id, 3, 1000);
    const [quietJob] = await queue(conn, quiet.id, 1, 5000);
    const lastServed = new Map<string, number>([[busy.id, 10]]);
    const next = () => claimNextJob(conn, { owner: "s", kinds: [KIND], now: 100, lastServed });
    expect((await next())!.id).toBe(quietJob!);
    lastServed.set(quiet.id, 20);
    expect((await next())!.id).toBe(busyJobs[0]!);
  });

  test("a job a restart left in processing goes before any queued one", async () => {
    const { conn } = freshDb("resume");
    const a = await addUser(conn, { email: "a@example.com", name: null, plan: "pro" });
    const b = await addUser(conn, { email: "b@example.com", name: null, plan: "pro" });
    await queue(conn, a.id, 2, 1000);
    const [late] = await queue(conn, b.id, 1, 9000);
    await updateJob(conn, late!, { status: "processing" });
    expect((await claimNextJob(conn, { owner: "s", kinds: [KIND], now: 100, lastServed: new Map([[b.id, 99]]) }))!.id).toBe(late!);
  });
});

describe("holdsStep", () => {
  test("only the claim's holder may settle, and only the step and attempt it ran", async () => {
    const { conn } = freshDb("fence");
    const user = await addUser(conn, { email: "fence@example.com", name: null, plan: "pro" });
    const [only] = await queue(conn, user.id, 1);
    const t0 = 1_000_000;
    await claimNextJob(conn, { owner: "a", kinds: [KIND], now: t0, lastServed: new Map() });
    expect(await holdsStep(conn, only!, { owner: "a", step: "decode", stepAttempts: 0 })).toBe(true);
    expect(await holdsStep(conn, only!, { owner: "b", step: "decode", stepAttempts: 0 })).toBe(false);
    // a stalls past its lease; b takes the job over and retries the step: a's outcome is stale twice over.
    await claimNextJob(conn, { owner: "b", kinds: [KIND], now: t0 + 2 * LEASE_MS, lastServed: new Map() });
    await updateJob(conn, only!, { stepAttempts: 1 });
    expect(await holdsStep(conn, only!, { owner: "a", step: "decode", stepAttempts: 0 })).toBe(false);
    expect(await holdsStep(conn, only!, { owner: "b", step: "decode", stepAttempts: 0 })).toBe(false);
    expect(await holdsStep(conn, only!, { owner: "b", step: "decode", stepAttempts: 1 })).toBe(true);
  });

  test("a start drops every claim left on SQLite (the data dir lock says their holder is dead), none on PostgreSQL", async () => {
    const { conn } = freshDb("restart");
    const user = await addUser(conn, { email: "restart@example.com", name: null, plan: "pro" });
    const [only] = await queue(conn, user.id, 1);
    await claimNextJob(conn, { owner: "dead", kinds: [KIND], now: 100, lastServed: new Map() });
    expect(await claimNextJob(conn, { owner: "next", kinds: [KIND], now: 101, lastServed: new Map() })).toBeUndefined();
    await releaseAllLeases(conn);
    // On PostgreSQL other nodes may be running what they hold: a claim is taken over only when its lease runs out.
    expect((await claimNextJob(conn, { owner: "next", kinds: [KIND], now: 101, lastServed: new Map() }))?.id).toBe(onPostgres ? undefined : only!);
  });
});

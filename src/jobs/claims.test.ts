import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { z } from "zod";
import { createUser } from "../auth/user-store.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { claimNextJob, holdsStep, LEASE_MS, releaseAllLeases, releaseLease, renewLease } from "./claims-store.ts";
import { updateJob } from "./store.ts";
import { jobs } from "./table.ts";


const temps: TempDatabase[] = [];
afterAll(() => temps.forEach((t) => t.remove()));

/** A kind of the test's own: the queue serves whatever kinds it is given. */
const KIND = "test_kind";

function freshDb(name: string) {
  const temp = tempDatabase(`claims-${name}`);
  temps.push(temp);
  return { db: temp.db, conn: temp.conn, path: temp.path };
}

async function queue(db: ReturnType<typeof freshDb>["db"], userId: string, count: number, createdFrom = 1000) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `job_${userId.slice(0, 6)}_${i}`;
    await db.insert(jobs).values({ id, userId, kind: KIND, status: "queued", stage: "queued", progress: 0, channel: "api", nextStep: "decode", createdAt: createdFrom + i });
    ids.push(id);
  }
  return ids;
}

describe("claimNextJob", () => {
  test("two processes claiming 600 jobs from one database at once never get the same job", async () => {
    const { db, path } = freshDb("race");
    const user = await createUser(db, { email: "race@example.com", name: null, plan: "pro" });
    const all = await queue(db, user.id, 600);
    db.$client.close();
    const barrier = `${path}.ready`;
    const script = (owner: string) => `
      import { appendFileSync, readFileSync } from "node:fs";
      import { openConn } from ${JSON.stringify(join(import.meta.dir, "../db/conn.ts"))};
      import { claimNextJob } from ${JSON.stringify(join(import.meta.dir, "claims-store.ts"))};
      const db = openConn(${JSON.stringify(path)});
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
          if (db.sqlite.query("SELECT count(*) AS n FROM jobs WHERE lease_owner IS NULL").get().n === 0) break;
          await Bun.sleep(1);
          continue;
        }
        got.push(job.id);
        // A pause now and then, so a process the scheduler of a busy machine starts late still
        // meets the other mid-way: the race is on every claim, not on who starts first.
        if (got.length % 10 === 0) await Bun.sleep(1);
      }
      console.log(JSON.stringify(got));`;
    const runs = ["sched_a", "sched_b"].map((owner) => Bun.spawn([process.execPath, "-e", script(owner)], { stdout: "pipe", stderr: "inherit" }));
    const outputs = await Promise.all(runs.map(async (p) => z.array(z.string()).parse(JSON.parse(await new Response(p.stdout).text()))));
    const claimed = outputs.flat();
    expect(claimed.length).toBe(all.length);
    expect(new Set(claimed).size).toBe(all.length);
    // Both really competed (each got a share), so the test exercised the race.
    expect(Math.min(...outputs.map((o) => o.length))).toBeGreaterThan(0);
  });

  test("a claimed job is nobody else's until its lease runs out unrenewed, or is released", async () => {
    const { db, conn } = freshDb("lease");
    const user = await createUser(db, { email: "lease@example.com", name: null, plan: "pro" });
    const [only] = await queue(db, user.id, 1);
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
    const { db, conn } = freshDb("fair");
    const busy = await createUser(db, { email: "busy@example.com", name: null, plan: "pro" });
    const quiet = await createUser(db, { email: "quiet@example.com", name: null, plan: "pro" });
    const busyJobs = await queue(db, busy.id, 3, 1000);
    const [quietJob] = await queue(db, quiet.id, 1, 5000);
    const lastServed = new Map<string, number>([[busy.id, 10]]);
    const next = () => claimNextJob(conn, { owner: "s", kinds: [KIND], now: 100, lastServed });
    expect((await next())!.id).toBe(quietJob!);
    lastServed.set(quiet.id, 20);
    expect((await next())!.id).toBe(busyJobs[0]!);
  });

  test("a job a restart left in processing goes before any queued one", async () => {
    const { db, conn } = freshDb("resume");
    const a = await createUser(db, { email: "a@example.com", name: null, plan: "pro" });
    const b = await createUser(db, { email: "b@example.com", name: null, plan: "pro" });
    await queue(db, a.id, 2, 1000);
    const [late] = await queue(db, b.id, 1, 9000);
    db.$client.query("UPDATE jobs SET status = 'processing' WHERE id = ?").run(late!);
    expect((await claimNextJob(conn, { owner: "s", kinds: [KIND], now: 100, lastServed: new Map([[b.id, 99]]) }))!.id).toBe(late!);
  });
});

describe("holdsStep", () => {
  test("only the claim's holder may settle, and only the step and attempt it ran", async () => {
    const { db, conn } = freshDb("fence");
    const user = await createUser(db, { email: "fence@example.com", name: null, plan: "pro" });
    const [only] = await queue(db, user.id, 1);
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

  test("on SQLite a start drops every claim left (the data dir lock says their holder is dead)", async () => {
    const { db, conn } = freshDb("restart");
    const user = await createUser(db, { email: "restart@example.com", name: null, plan: "pro" });
    const [only] = await queue(db, user.id, 1);
    await claimNextJob(conn, { owner: "dead", kinds: [KIND], now: 100, lastServed: new Map() });
    expect(await claimNextJob(conn, { owner: "next", kinds: [KIND], now: 101, lastServed: new Map() })).toBeUndefined();
    await releaseAllLeases(conn);
    expect((await claimNextJob(conn, { owner: "next", kinds: [KIND], now: 101, lastServed: new Map() }))?.id).toBe(only!);
  });
});

import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { isPostgres, row, rows } from "../db/sql.ts";
import type { JobRow } from "./query.ts";
import { jobs } from "./table.ts";

/** A claim lasts this long unless renewed; a running job's claim is renewed every third of it. */
export const LEASE_MS = 60_000;

/** Unfinished jobs of these kinds that nobody holds, or whose holder stopped renewing. */
function claimable(kinds: readonly string[], now: number) {
  return and(
    inArray(jobs.kind, [...kinds]),
    inArray(jobs.status, ["queued", "processing"]),
    or(isNull(jobs.leaseOwner), lt(jobs.leaseExpiresAt, now)),
  );
}

/**
 * Claims the next job for `owner`, round-robin across accounts: jobs a restart left in
 * processing go first, then the oldest job of the account served longest ago (`lastServed`,
 * never served counts as oldest), so one account's fifty queued jobs cannot hold every worker
 * while another account's one job waits. The claim itself is one UPDATE ... RETURNING that
 * re-checks the job is claimable: two schedulers over one database never both get a job. On
 * PostgreSQL, where schedulers on several machines claim at once, the row is picked with
 * FOR UPDATE SKIP LOCKED: a job another node is claiming right now is passed over, not waited for.
 */
export function claimNextJob(
  c: Conn,
  input: { owner: string; kinds: readonly string[]; now: number; lastServed: ReadonlyMap<string, number> },
): Promise<JobRow | undefined> {
  return run(c, (db) => claimNext(db, input));
}

async function claimNext(db: Queryable, input: Parameters<typeof claimNextJob>[1]): Promise<JobRow | undefined> {
  // Heads another scheduler took between our two statements: not offered again in this claim.
  const taken = new Set<string>();
  for (let attempt = 0; attempt < 5; attempt++) {
    // Each account's first job in line (at most one row per account).
    const heads = (
      await rows<{ id: string; user_id: string; status: string }>(
        db,
        sql`
      SELECT id, user_id, status FROM (
        SELECT ${jobs.id} AS id, ${jobs.userId} AS user_id, ${jobs.status} AS status,
               row_number() OVER (PARTITION BY ${jobs.userId}
                                  ORDER BY (CASE WHEN ${jobs.status} = 'processing' THEN 0 ELSE 1 END), ${jobs.createdAt}, ${jobs.id}) AS place,
               ${jobs.createdAt} AS created_at
          FROM ${jobs}
         WHERE ${claimable(input.kinds, input.now)}
      ) AS heads WHERE place = 1
      ORDER BY (CASE WHEN status = 'processing' THEN 0 ELSE 1 END), created_at, id`,
      )
    ).filter((head) => !taken.has(head.id));
    if (!heads.length) return undefined;
    const resumed = heads.find((h) => h.status === "processing");
    const next =
      resumed ??
      heads.reduce((best, head) => ((input.lastServed.get(head.user_id) ?? 0) < (input.lastServed.get(best.user_id) ?? 0) ? head : best));
    const claimed = await claimOne(db, next.id, input);
    if (claimed) return claimed;
    // Taken or finished between the two statements: look again.
    taken.add(next.id);
  }
  return undefined;
}

/** Sets the lease on one job if it is still claimable: the row as claimed, or undefined. */
async function claimOne(db: Queryable, jobId: string, input: { owner: string; kinds: readonly string[]; now: number }): Promise<JobRow | undefined> {
  const lease = { leaseOwner: input.owner, leaseExpiresAt: input.now + LEASE_MS };
  if (!isPostgres(db)) {
    // SQLite serialises writers: the UPDATE's own re-check is the claim.
    return (await db.update(jobs).set(lease).where(and(eq(jobs.id, jobId), claimable(input.kinds, input.now))).returning())[0];
  }
  const candidate = sql`SELECT ${jobs.id} FROM ${jobs} WHERE ${and(eq(jobs.id, jobId), claimable(input.kinds, input.now))} FOR UPDATE SKIP LOCKED`;
  return (await db.update(jobs).set(lease).where(sql`${jobs.id} IN (${candidate})`).returning())[0];
}

/**
 * Whether another account's queued job should run before this one, as round-robin would choose
 * (claimNextJob): this job is queued, and an account served longer ago than its own (by this
 * scheduler: `lastServed`) has a queued job nobody holds. For a job named by its queue message
 * (PostgreSQL), whose messages come first in, first out: the message waits its turn instead.
 */
export function fairerJobWaits(c: Conn, jobId: string, input: { kinds: readonly string[]; now: number; lastServed: ReadonlyMap<string, number> }): Promise<boolean> {
  return run(c, async (db) => {
    const [job] = await db.select({ userId: jobs.userId, status: jobs.status }).from(jobs).where(eq(jobs.id, jobId));
    if (!job || job.status !== "queued") return false;
    const served = input.lastServed.get(job.userId) ?? 0;
    if (served === 0) return false;
    const others = await db
      .selectDistinct({ userId: jobs.userId })
      .from(jobs)
      .where(and(claimable(input.kinds, input.now), eq(jobs.status, "queued"), sql`${jobs.userId} <> ${job.userId}`));
    return others.some((other) => (input.lastServed.get(other.userId) ?? 0) < served);
  });
}

/**
 * Claims one given job for `owner` (the job its queue message names, on PostgreSQL): the row as
 * claimed; or why not: "gone" (finished, canceled, deleted: the message is done with) or "held"
 * (another scheduler's claim is still live: the message is tried again later).
 */
export function claimJob(c: Conn, jobId: string, input: { owner: string; kinds: readonly string[]; now: number }): Promise<JobRow | "gone" | "held"> {
  return run(c, async (db) => {
    const claimed = await claimOne(db, jobId, input);
    if (claimed) return claimed;
    const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, jobId));
    return job && (job.status === "queued" || job.status === "processing") ? "held" : "gone";
  });
}

/**
 * Extends a running job's claim; false when the claim was lost: another owner took it over, or
 * the job was canceled (by any node: DELETE of its meeting, an account deletion).
 */
export function renewLease(c: Conn, jobId: string, owner: string, now: number): Promise<boolean> {
  return run(
    c,
    async (db) =>
      (
        await db
          .update(jobs)
          .set({ leaseExpiresAt: now + LEASE_MS })
          .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner), inArray(jobs.status, ["queued", "processing"])))
          .returning({ id: jobs.id })
      ).length > 0,
  );
}

/**
 * Whether `owner` may still settle the step it ran: it holds the job's claim, and the job still
 * waits on that step at that attempt (fenced by attempt: a node whose lease ran out while it
 * worked, and whose job another node took over and moved on, writes nothing). Called first in
 * the transaction that settles the step; on PostgreSQL it locks the job row until that
 * transaction ends, so no other node can claim the job between this check and the write.
 */
export async function holdsStep(c: Conn, jobId: string, fence: { owner: string; step: string | null; stepAttempts: number }): Promise<boolean> {
  return run(c, async (db) => {
    const held = and(
      eq(jobs.id, jobId),
      eq(jobs.leaseOwner, fence.owner),
      fence.step === null ? isNull(jobs.nextStep) : eq(jobs.nextStep, fence.step),
      eq(jobs.stepAttempts, fence.stepAttempts),
    );
    const lock = isPostgres(db) ? sql` FOR UPDATE` : sql``;
    return (await row(db, sql`SELECT ${jobs.id} FROM ${jobs} WHERE ${held}${lock}`)) !== undefined;
  });
}

/** Lets go of a job (it finished, failed, was canceled, or the scheduler stops). */
export async function releaseLease(c: Conn, jobId: string, owner: string): Promise<void> {
  await run(c, async (db) => {
    await db.update(jobs).set({ leaseOwner: null, leaseExpiresAt: null }).where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner)));
  });
}

/**
 * At start, on SQLite: the data dir lock proves no other server runs on this database, so every
 * claim left is a dead server's and is dropped at once rather than after its lease runs out. On
 * PostgreSQL other nodes may be running the jobs they hold: only the claims of this node's previous
 * run (`previousOwner`, on the same locked data dir, so surely dead) are dropped; another dead
 * node's claims are taken over when their leases run out.
 */
export async function releaseAllLeases(c: Conn, previousOwner: string | null = null): Promise<void> {
  await run(c, async (db) => {
    if (isPostgres(db)) {
      if (previousOwner) await db.update(jobs).set({ leaseOwner: null, leaseExpiresAt: null }).where(eq(jobs.leaseOwner, previousOwner));
      return;
    }
    await db.update(jobs).set({ leaseOwner: null, leaseExpiresAt: null }).where(sql`${jobs.leaseOwner} IS NOT NULL`);
  });
}

import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
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
 * re-checks the job is claimable: two schedulers over one database never both get a job.
 */
export function claimNextJob(
  c: Conn,
  input: { owner: string; kinds: readonly string[]; now: number; lastServed: ReadonlyMap<string, number> },
): Promise<JobRow | undefined> {
  return run(c, (db) => claimNext(db, input));
}

function claimNext(db: Queryable, input: Parameters<typeof claimNextJob>[1]): JobRow | undefined {
  for (let attempt = 0; attempt < 5; attempt++) {
    // Each account's first job in line (at most one row per account).
    const heads = db.all<{ id: string; user_id: string; status: string }>(sql`
      SELECT id, user_id, status FROM (
        SELECT ${jobs.id} AS id, ${jobs.userId} AS user_id, ${jobs.status} AS status,
               row_number() OVER (PARTITION BY ${jobs.userId}
                                  ORDER BY ${jobs.status} = 'processing' DESC, ${jobs.createdAt}, ${jobs.id}) AS place,
               ${jobs.createdAt} AS created_at
          FROM ${jobs}
         WHERE ${claimable(input.kinds, input.now)}
      ) WHERE place = 1
      ORDER BY status = 'processing' DESC, created_at, id`);
    if (!heads.length) return undefined;
    const resumed = heads.find((h) => h.status === "processing");
    const next =
      resumed ??
      heads.reduce((best, head) => ((input.lastServed.get(head.user_id) ?? 0) < (input.lastServed.get(best.user_id) ?? 0) ? head : best));
    const claimed = db
      .update(jobs)
      .set({ leaseOwner: input.owner, leaseExpiresAt: input.now + LEASE_MS })
      .where(and(eq(jobs.id, next.id), claimable(input.kinds, input.now)))
      .returning()
      .get();
    if (claimed) return claimed;
    // Taken or finished between the two statements: look again.
  }
  return undefined;
}

/** Extends a running job's claim; false when the claim was lost (another owner took it over). */
export function renewLease(c: Conn, jobId: string, owner: string, now: number): Promise<boolean> {
  return run(
    c,
    (db) =>
      db
        .update(jobs)
        .set({ leaseExpiresAt: now + LEASE_MS })
        .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner)))
        .returning({ id: jobs.id })
        .get() !== undefined,
  );
}

/** Lets go of a job (it finished, failed, was canceled, or the scheduler stops). */
export async function releaseLease(c: Conn, jobId: string, owner: string): Promise<void> {
  await run(c, (db) => db.update(jobs).set({ leaseOwner: null, leaseExpiresAt: null }).where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner))).run());
}

/**
 * At start: the data dir lock proves no other server runs on this database, so every claim
 * left is a dead server's and is dropped at once rather than after its lease runs out.
 */
export async function releaseAllLeases(c: Conn): Promise<void> {
  await run(c, (db) => db.update(jobs).set({ leaseOwner: null, leaseExpiresAt: null }).where(sql`${jobs.leaseOwner} IS NOT NULL`).run());
}

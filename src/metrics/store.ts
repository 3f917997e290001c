import { sql } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";

/** What the metrics read from the database at scrape time. */

/** Jobs queued or running, counted by kind and status. */
export function jobsInFlight(c: Conn): Promise<Array<{ kind: string; status: string; n: number }>> {
  return run(c, (q) =>
    q.all<{ kind: string; status: string; n: number }>(sql`SELECT kind, status, count(*) AS n FROM jobs WHERE status IN ('queued', 'processing') GROUP BY kind, status`),
  );
}

/** Webhook deliveries waiting for their next attempt. */
export function deliveriesDue(c: Conn): Promise<number> {
  return run(c, (q) => q.get<{ n: number }>(sql`SELECT count(*) AS n FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL`)?.n ?? 0);
}

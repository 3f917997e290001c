import { sql } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { row, rows } from "../db/sql.ts";

/** What the metrics read from the database at scrape time (SQL both SQLite and PostgreSQL run). */

/** Jobs queued or running, counted by kind and status. */
export function jobsInFlight(c: Conn): Promise<Array<{ kind: string; status: string; n: number }>> {
  return run(c, (q) =>
    rows<{ kind: string; status: string; n: number }>(q, sql`SELECT kind, status, count(*) AS n FROM jobs WHERE status IN ('queued', 'processing') GROUP BY kind, status`),
  );
}

/** Webhook deliveries waiting for their next attempt. */
export function deliveriesDue(c: Conn): Promise<number> {
  return run(c, async (q) => (await row<{ n: number }>(q, sql`SELECT count(*) AS n FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL`))?.n ?? 0);
}

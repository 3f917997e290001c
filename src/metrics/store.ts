import { sql } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { row, rows } from "../db/sql.ts";
import { NODE_STALE_MS } from "../nodes/store.ts";

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

/** Seconds the oldest queued job of each kind has waited since it was created (kinds with one queued). */
export function oldestQueued(c: Conn, now: number): Promise<Array<{ kind: string; seconds: number }>> {
  return run(c, async (q) =>
    (await rows<{ kind: string; created: number }>(q, sql`SELECT kind, min(created_at) AS created FROM jobs WHERE status = 'queued' GROUP BY kind`)).map((r) => ({
      kind: r.kind,
      seconds: Math.max(0, (now - Number(r.created)) / 1000),
    })),
  );
}

/**
 * Jobs running per node (their lease owner is the node's id), with every live worker node listed,
 * idle ones at 0. A job still leased to a node that died shows under that node's id until its
 * lease runs out and another node takes it.
 */
export function jobsPerNode(c: Conn, now: number): Promise<Array<{ node: string; hostname: string; n: number }>> {
  return run(c, async (q) => {
    const live = await rows<{ node: string; hostname: string }>(
      q,
      sql`SELECT id AS node, hostname FROM nodes WHERE role IN ('worker', 'all') AND stopped_at IS NULL AND heartbeat_at >= ${now - NODE_STALE_MS}`,
    );
    const running = await rows<{ node: string; hostname: string | null; n: number }>(
      q,
      sql`SELECT j.lease_owner AS node, max(n.hostname) AS hostname, count(*) AS n FROM jobs j LEFT JOIN nodes n ON n.id = j.lease_owner
          WHERE j.status = 'processing' AND j.lease_owner IS NOT NULL GROUP BY j.lease_owner`,
    );
    const byNode = new Map(live.map((l) => [l.node, { node: l.node, hostname: l.hostname, n: 0 }]));
    for (const r of running) byNode.set(r.node, { node: r.node, hostname: r.hostname ?? "", n: Number(r.n) });
    return [...byNode.values()];
  });
}

/**
 * On PostgreSQL, pg-boss's messages per queue and state, counted in its own table (its cached
 * per-queue counts are refreshed only by a supervising node, once a minute). Queued: created or
 * retry, waiting for a worker node to fetch them; active: fetched and not yet settled.
 */
export function queueMessages(c: Conn, kinds: readonly string[]): Promise<Array<{ kind: string; state: "queued" | "active"; n: number }>> {
  return run(c, async (q) => {
    const found = await rows<{ kind: string; state: "queued" | "active"; n: number }>(
      q,
      sql`SELECT name AS kind, CASE WHEN state = 'active' THEN 'active' ELSE 'queued' END AS state, count(*) AS n
          FROM pgboss.job WHERE name IN (${sql.join(kinds.map((k) => sql`${k}`), sql`, `)}) AND state IN ('created', 'retry', 'active')
          GROUP BY 1, 2`,
    );
    return found.map((r) => ({ ...r, n: Number(r.n) }));
  });
}

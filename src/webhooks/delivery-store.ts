import { and, desc, eq, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { isPostgres } from "../db/sql.ts";
import { paginateAsync, type Page } from "../http/pagination.ts";
import { randomId } from "../lib/ids.ts";
import { webhookDeliveries, webhookEndpoints } from "./table.ts";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Deliveries are kept 30 days (SPEC 6, Delivery rules). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** A pending delivery of one event to one endpoint, due now. */
export function queueDelivery(c: Conn, input: { userId: string; endpointId: string; eventId: string; eventType: string; now: number }): Promise<DeliveryRow> {
  const row: DeliveryRow = {
    id: randomId("whd"),
    userId: input.userId,
    endpointId: input.endpointId,
    eventId: input.eventId,
    eventType: input.eventType,
    status: "pending",
    attempts: 0,
    responseStatus: null,
    responseBodyExcerpt: null,
    durationMs: null,
    error: null,
    nextAttemptAt: input.now,
    lastAttemptAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    createdAt: input.now,
  };
  return run(c, async (q) => {
    await q.insert(webhookDeliveries).values(row);
    return row;
  });
}

async function park(q: Queryable, endpointId: string): Promise<void> {
  await q
    .update(webhookDeliveries)
    .set({ nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, ["pending", "retrying"])));
}

/** A disabled endpoint's unfinished deliveries wait, not due, until it is enabled again. */
export function parkDeliveries(c: Conn, endpointId: string): Promise<void> {
  return run(c, (q) => park(q, endpointId));
}

/** An endpoint enabled again: its parked deliveries are due now. */
export function unparkDeliveries(c: Conn, endpointId: string, now: number): Promise<void> {
  return run(c, async (q) => {
    await q
      .update(webhookDeliveries)
      .set({ nextAttemptAt: now })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, ["pending", "retrying"]), isNull(webhookDeliveries.nextAttemptAt)));
  });
}

/** A page of an endpoint's deliveries, newest first. */
export function deliveriesPage(c: Conn, endpointId: string, page: { limit: number; cursor?: string }): Promise<Page<DeliveryRow>> {
  return run(c, (q) =>
    paginateAsync(
      page,
      (after, take) =>
        q
          .select()
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.endpointId, endpointId), newestFirstAfter(webhookDeliveries.createdAt, webhookDeliveries.id, after)))
          .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
          .limit(take),
      (row) => [row.createdAt, row.id],
      (rows) => rows,
    ),
  );
}

/** Removes deliveries older than 30 days (the retention sweep, storage/retention.ts); answers how many. */
export function purgeOldDeliveries(c: Conn, now: number): Promise<number> {
  return run(
    c,
    async (q) => (await q.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, now - DELIVERY_RETENTION_MS)).returning({ id: webhookDeliveries.id })).length,
  );
}

export function findDelivery(c: Conn, deliveryId: string): Promise<DeliveryRow | undefined> {
  return run(c, async (q) => (await q.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).limit(1))[0]);
}

/** Due at `now` (its attempt's time has come) and held by no dispatcher, or by one whose lease ran out. */
function claimable(now: number) {
  return and(
    lte(webhookDeliveries.nextAttemptAt, now),
    or(isNull(webhookDeliveries.leaseOwner), lt(webhookDeliveries.leaseExpiresAt, now)),
  );
}

/**
 * Claims for `owner` an endpoint's deliveries due at `now`, oldest due first (by index), at most
 * `limit`: each claimed row is this dispatcher's to send until `leaseUntil`, and no other
 * dispatcher's (another node's, or a restarted one's) until the attempt is recorded or the lease
 * runs out.
 */
export async function claimDueDeliveries(
  c: Conn,
  input: { endpointId: string; owner: string; now: number; leaseUntil: number; limit: number },
): Promise<DeliveryRow[]> {
  const rows = await claim(c, and(eq(webhookDeliveries.endpointId, input.endpointId), claimable(input.now))!, input.limit, input);
  // RETURNING keeps no order: oldest due first again.
  return rows.sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt!);
}

/** Claims one delivery (a ping sent now) when it is due and nobody holds it: the row, or undefined. */
export async function claimDelivery(c: Conn, input: { deliveryId: string; owner: string; now: number; leaseUntil: number }): Promise<DeliveryRow | undefined> {
  return (await claim(c, and(eq(webhookDeliveries.id, input.deliveryId), claimable(input.now))!, 1, input))[0];
}

/**
 * Sets the lease on at most `limit` rows matching `where`, oldest due first, in one statement: on
 * SQLite the write is serialised; on PostgreSQL the rows are picked FOR UPDATE SKIP LOCKED, so
 * nodes claiming at once take different deliveries and never wait on each other.
 */
function claim(c: Conn, where: SQL, limit: number, lease: { owner: string; leaseUntil: number }): Promise<DeliveryRow[]> {
  return run(c, async (q) => {
    const lock = isPostgres(q) ? sql` FOR UPDATE SKIP LOCKED` : sql``;
    const picked = sql`SELECT ${webhookDeliveries.id} FROM ${webhookDeliveries} WHERE ${where} ORDER BY ${webhookDeliveries.nextAttemptAt} LIMIT ${limit}${lock}`;
    return q
      .update(webhookDeliveries)
      .set({ leaseOwner: lease.owner, leaseExpiresAt: lease.leaseUntil })
      .where(sql`${webhookDeliveries.id} IN (${picked})`)
      .returning();
  });
}

/** Lets go of deliveries claimed but not sent (no room left when they came to start): due again at once. */
export async function releaseDeliveries(c: Conn, deliveryIds: string[], owner: string): Promise<void> {
  if (!deliveryIds.length) return;
  await run(c, async (q) => {
    await q
      .update(webhookDeliveries)
      .set({ leaseOwner: null, leaseExpiresAt: null })
      .where(and(inArray(webhookDeliveries.id, deliveryIds), eq(webhookDeliveries.leaseOwner, owner)));
  });
}

/**
 * At the dispatcher's start, on SQLite: the data dir lock proves no other server sends from this
 * database, so a claim left is a dead process's, and its delivery is due again at once (as it was
 * before claims existed). On PostgreSQL other nodes may be sending what they hold: only the claims
 * of this node's previous run (`previousOwner`, on the same locked data dir) are dropped; another
 * dead node's claims are taken over when their leases run out.
 */
export async function releaseAllDeliveryLeases(c: Conn, previousOwner: string | null = null): Promise<void> {
  await run(c, async (q) => {
    if (isPostgres(q)) {
      if (previousOwner) await q.update(webhookDeliveries).set({ leaseOwner: null, leaseExpiresAt: null }).where(eq(webhookDeliveries.leaseOwner, previousOwner));
      return;
    }
    await q.update(webhookDeliveries).set({ leaseOwner: null, leaseExpiresAt: null }).where(isNotNull(webhookDeliveries.leaseOwner));
  });
}

/**
 * A delivery that can never be sent (its event was deleted with its meeting): failed, with why.
 * Written only while `owner` still holds it.
 */
export function failDelivery(c: Conn, deliveryId: string, owner: string, error: string): Promise<void> {
  return run(c, async (q) => {
    await q
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null, error, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.leaseOwner, owner)));
  });
}

export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  /** The dispatcher that claimed the attempt: nothing is written once another holds it. */
  owner: string;
  now: number;
  /** The delivery's attempts, this one included. */
  attempts: number;
  ok: boolean;
  responseStatus: number | null;
  responseBodyExcerpt: string | null;
  durationMs: number;
  error: string | null;
  /** When to try again after a failed attempt; null when it was the last one. */
  retryAt: number | null;
  /** Consecutive failures that disable the endpoint. */
  disableAfter: number;
}

/**
 * One attempt's outcome, the delivery's next state (its claim released) and the endpoint's
 * failure count, in one transaction: success resets the count; a failure raises it and, at
 * `disableAfter`, disables the endpoint and parks its deliveries. Fenced by the claim: a
 * dispatcher whose lease ran out and whose delivery another took over records nothing (the other's
 * attempt is the one that counts). Answers whether it was recorded and whether it disabled the endpoint.
 */
export function recordAttempt(c: Conn, a: AttemptRecord): Promise<{ recorded: boolean; disabled: boolean }> {
  return runTx(c, async (q) => {
    const attempt = {
      attempts: a.attempts,
      lastAttemptAt: a.now,
      responseStatus: a.responseStatus,
      responseBodyExcerpt: a.responseBodyExcerpt,
      durationMs: a.durationMs,
      error: a.error,
      leaseOwner: null,
      leaseExpiresAt: null,
    };
    const held = and(eq(webhookDeliveries.id, a.deliveryId), eq(webhookDeliveries.leaseOwner, a.owner));
    if (a.ok) {
      const recorded = await q
        .update(webhookDeliveries)
        .set({ ...attempt, status: "succeeded", nextAttemptAt: null })
        .where(held)
        .returning({ id: webhookDeliveries.id });
      if (!recorded.length) return { recorded: false, disabled: false };
      await q.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, a.endpointId));
      return { recorded: true, disabled: false };
    }
    const recorded = await q
      .update(webhookDeliveries)
      .set({ ...attempt, status: a.retryAt === null ? "failed" : "retrying", nextAttemptAt: a.retryAt })
      .where(held)
      .returning({ id: webhookDeliveries.id });
    if (!recorded.length) return { recorded: false, disabled: false };
    const [updated] = await q
      .update(webhookEndpoints)
      .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
      .where(eq(webhookEndpoints.id, a.endpointId))
      .returning({ failures: webhookEndpoints.consecutiveFailures, enabled: webhookEndpoints.enabled });
    if (updated && updated.enabled && updated.failures >= a.disableAfter) {
      await q.update(webhookEndpoints).set({ enabled: false, disabledReason: "too_many_failures", updatedAt: a.now }).where(eq(webhookEndpoints.id, a.endpointId));
      await park(q, a.endpointId);
      return { recorded: true, disabled: true };
    }
    return { recorded: true, disabled: false };
  });
}

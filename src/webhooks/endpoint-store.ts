import { and, count, desc, eq } from "drizzle-orm";
import { run, runTx, type Conn } from "../db/conn.ts";
import { webhookDeliveries, webhookEndpoints } from "./table.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The account's endpoint, or undefined when there is none of that id (or it is another account's). */
export function findOwnedEndpoint(c: Conn, userId: string, endpointId: string): Promise<EndpointRow | undefined> {
  return run(
    c,
    async (q) =>
      (
        await q
          .select()
          .from(webhookEndpoints)
          .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.userId, userId)))
          .limit(1)
      )[0],
  );
}

/** An endpoint by id, whoever owns it (the delivery thread). */
export function findEndpoint(c: Conn, endpointId: string): Promise<EndpointRow | undefined> {
  return run(c, async (q) => (await q.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).limit(1))[0]);
}

/** The account's endpoints, newest first. */
export function listEndpoints(c: Conn, userId: string): Promise<EndpointRow[]> {
  return run(c, (q) => q.select().from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(desc(webhookEndpoints.createdAt)));
}

export function countEndpoints(c: Conn, userId: string): Promise<number> {
  return run(c, async (q) => (await q.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)))[0]?.n ?? 0);
}

/** The account's enabled endpoints (fan-out). */
export function enabledEndpointsOf(c: Conn, userId: string): Promise<EndpointRow[]> {
  return run(c, (q) =>
    q
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.enabled, true))),
  );
}

/** Every enabled endpoint's id (the dispatcher serves them in turn). */
export function enabledEndpointIds(c: Conn): Promise<string[]> {
  return run(c, async (q) => (await q.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.enabled, true))).map((row) => row.id));
}

export function insertEndpoint(c: Conn, row: EndpointRow): Promise<void> {
  return run(c, async (q) => {
    await q.insert(webhookEndpoints).values(row);
  });
}

export function updateEndpoint(c: Conn, endpointId: string, values: Partial<EndpointRow>): Promise<void> {
  return run(c, async (q) => {
    await q.update(webhookEndpoints).set(values).where(eq(webhookEndpoints.id, endpointId));
  });
}

/** Deletes the endpoint and its delivery log, in one transaction. */
export function deleteEndpointAndDeliveries(c: Conn, endpointId: string): Promise<void> {
  return runTx(c, async (q) => {
    await q.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
    await q.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
  });
}

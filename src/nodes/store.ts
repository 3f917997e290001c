import { and, count, eq, gte, inArray, isNull, lt, or } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { nodes, type NodeRole } from "./table.ts";

/** A node whose heartbeat is older than this is taken for dead. */
export const NODE_STALE_MS = 30_000;
/** Rows of nodes stopped or dead longer than this are removed (a day of history for operators). */
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

export interface NodeRow {
  id: string;
  role: NodeRole;
  hostname: string;
  pid: number;
  startedAt: number;
  heartbeatAt: number;
  stoppedAt: number | null;
}

export function registerNode(c: Conn, node: { id: string; role: NodeRole; hostname: string; pid: number; now: number }): Promise<void> {
  return run(c, async (q) => {
    await q.insert(nodes).values({ id: node.id, role: node.role, hostname: node.hostname, pid: node.pid, startedAt: node.now, heartbeatAt: node.now });
    // Old rows of nodes long gone, so the table stays the size of the cluster.
    await q.delete(nodes).where(lt(nodes.heartbeatAt, node.now - FORGET_AFTER_MS));
  });
}

export async function heartbeatNode(c: Conn, id: string, now: number): Promise<void> {
  await run(c, (q) => q.update(nodes).set({ heartbeatAt: now }).where(eq(nodes.id, id)));
}

export async function stopNode(c: Conn, id: string, now: number): Promise<void> {
  await run(c, (q) => q.update(nodes).set({ stoppedAt: now, heartbeatAt: now }).where(eq(nodes.id, id)));
}

/** Nodes with a fresh heartbeat that have not stopped, of these roles. */
export function liveNodes(c: Conn, roles: readonly NodeRole[], now: number): Promise<NodeRow[]> {
  return run(c, (q) =>
    q
      .select()
      .from(nodes)
      .where(and(inArray(nodes.role, [...roles]), isNull(nodes.stoppedAt), gte(nodes.heartbeatAt, now - NODE_STALE_MS)))
      .orderBy(nodes.startedAt),
  );
}

/** How many nodes of these roles are alive. */
export async function liveNodeCount(c: Conn, roles: readonly NodeRole[], now: number): Promise<number> {
  const [row] = await run(c, (q) =>
    q
      .select({ n: count() })
      .from(nodes)
      .where(and(inArray(nodes.role, [...roles]), or(isNull(nodes.stoppedAt)), gte(nodes.heartbeatAt, now - NODE_STALE_MS))),
  );
  return row?.n ?? 0;
}

import { and, eq, or, sql, type SQL } from "drizzle-orm";
import { clients } from "../clients/table.ts";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { meetings } from "./table.ts";

/**
 * Legal holds (issue 23): a meeting is held by its own flag or by its client folder's. A held
 * meeting is deleted by nobody (its owner's DELETE answers 409 legal_hold, the retention sweep and
 * the idle-draft sweep pass it by) and keeps its recording, until every hold on it is lifted.
 */

/** SQL true for a meeting under a hold, its own or its client folder's (for a WHERE on meetings). */
export function heldCondition(): SQL {
  return or(eq(meetings.legalHold, true), sql`EXISTS (SELECT 1 FROM ${clients} WHERE ${clients.id} = ${meetings.clientId} AND ${clients.userId} = ${meetings.userId} AND ${clients.legalHold} = ${true})`)!;
}

/** What holds the meeting: its own flag first, then its client folder's; null when nothing does (or there is no such meeting). */
async function holdOf(q: Queryable, meetingId: string): Promise<"meeting" | "client" | null> {
  const [found] = await q
    .select({ own: meetings.legalHold, client: clients.legalHold })
    .from(meetings)
    .leftJoin(clients, and(eq(clients.id, meetings.clientId), eq(clients.userId, meetings.userId)))
    .where(eq(meetings.id, meetingId))
    .limit(1);
  if (!found) return null;
  if (found.own) return "meeting";
  return found.client ? "client" : null;
}

/**
 * Takes the account's lock, then refuses (409 legal_hold) to go on with a held meeting: first in
 * every transaction that deletes a meeting or its recording. Setting a hold takes the same lock
 * (patch-store.ts, clients/store.ts), so a hold committed before is always seen here.
 */
export function lockUnlessHeld(c: Conn, userId: string, meetingId: string): Promise<void> {
  return run(c, async (q) => {
    await lockAccount(q, userId);
    await assertNotHeld(q, meetingId);
  });
}

async function assertNotHeld(q: Queryable, meetingId: string): Promise<void> {
  const hold = await holdOf(q, meetingId);
  if (hold === "meeting") throw new ApiError("legal_hold", `Meeting ${meetingId} is under a legal hold; lift it (PATCH legal_hold false) before deleting it.`);
  if (hold === "client") throw new ApiError("legal_hold", `Meeting ${meetingId} is in a client folder under a legal hold; lift the client's hold before deleting it.`);
}

import { and, eq, inArray, isNotNull, isNull, ne, not, or, sql, type SQL } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { DAY_MS } from "../retention/policy.ts";
import { retentionPolicies } from "../retention/table.ts";
import { heldCondition } from "./legal-hold-store.ts";
import { meetings } from "./table.ts";

/** What a retention policy deletes: the whole meeting, or only its recording. */
export type RetentionCut = "meeting" | "recording";

/** What the periods count from: recorded_at, or created_at on rows that have none (0); retention/store.ts's retentionBasis in SQL. */
const basis = sql`(CASE WHEN ${meetings.recordedAt} > 0 THEN ${meetings.recordedAt} ELSE ${meetings.createdAt} END)`;

/**
 * The conditions of a meeting the sweep may cut at `now`: its account's period for the cut is set
 * and has passed, and no legal hold is on it. A recording goes only from a meeting whose processing
 * has ended (completed or failed: a queued or running job still reads it), which has one (not a
 * text meeting) and still has it.
 */
function dueConditions(cut: RetentionCut, now: number): SQL[] {
  const days = cut === "meeting" ? retentionPolicies.deleteAfterDays : retentionPolicies.recordingDeleteAfterDays;
  const conditions = [isNotNull(days), sql`${basis} + ${days} * ${DAY_MS} <= ${now}`, not(heldCondition())];
  if (cut === "recording") {
    conditions.push(
      isNull(meetings.recordingDeletedAt),
      inArray(meetings.status, ["completed", "failed"]),
      or(isNull(meetings.source), ne(meetings.source, "text"))!,
    );
  }
  return conditions;
}

/** Up to `limit` meetings due for `cut` at `now`, oldest first, with their owners. */
export function meetingsDue(c: Conn, cut: RetentionCut, now: number, limit: number): Promise<{ id: string; userId: string }[]> {
  return run(c, (q) =>
    q
      .select({ id: meetings.id, userId: meetings.userId })
      .from(meetings)
      .innerJoin(retentionPolicies, eq(retentionPolicies.userId, meetings.userId))
      .where(and(...dueConditions(cut, now)))
      .orderBy(basis, meetings.id)
      .limit(limit),
  );
}

/** Whether one meeting is still due for `cut` at `now`: re-checked in the transaction that cuts it, after the account's lock. */
export function stillDue(c: Conn, cut: RetentionCut, meetingId: string, now: number): Promise<boolean> {
  return run(c, async (q) => {
    const [found] = await q
      .select({ id: meetings.id })
      .from(meetings)
      .innerJoin(retentionPolicies, eq(retentionPolicies.userId, meetings.userId))
      .where(and(eq(meetings.id, meetingId), ...dueConditions(cut, now)))
      .limit(1);
    return found !== undefined;
  });
}

/** Records that the recording is gone (the player is hidden, the audio route answers 410), inside the cutting transaction. */
export function markRecordingDeleted(c: Conn, meetingId: string, now: number): Promise<void> {
  return run(c, async (q) => {
    await q.update(meetings).set({ recordingDeletedAt: now }).where(eq(meetings.id, meetingId));
  });
}

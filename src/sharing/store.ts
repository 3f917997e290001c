import { and, desc, eq, isNull } from "drizzle-orm";
import type { Plan } from "../auth/plans.ts";
import { users } from "../auth/table.ts";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { meetings } from "../meetings/table.ts";
import { meetingShares, type SharePermission } from "./table.ts";

/** One share of a meeting as its owner sees it: with whom, and what they may do. */
export interface ShareRow {
  id: string;
  recipientUserId: string;
  email: string;
  name: string | null;
  permission: SharePermission;
  createdAt: number;
}

/** A meeting shared with the reader: the meeting's headline, its owner, and what the reader may do. */
export interface SharedMeetingRow {
  meetingId: string;
  title: string;
  status: string;
  recordedAt: number;
  durationSeconds: number | null;
  ownerEmail: string;
  ownerName: string | null;
  permission: SharePermission;
  sharedAt: number;
}

/** A share of a meeting with one reader, and the owner's account the meeting's use cases act in. */
export interface ShareGrant {
  permission: SharePermission;
  ownerUserId: string;
  ownerPlan: Plan;
  ownerEmail: string;
}

/** Shares the meeting with the recipient, or changes what a share lets them do; the share's id. */
export function storeShare(
  c: Conn,
  share: { id: string; meetingId: string; ownerUserId: string; recipientUserId: string; permission: SharePermission; now: number },
): Promise<string> {
  return run(c, async (q) => {
    const [stored] = await q
      .insert(meetingShares)
      .values({ id: share.id, meetingId: share.meetingId, userId: share.ownerUserId, recipientUserId: share.recipientUserId, permission: share.permission, createdAt: share.now })
      .onConflictDoUpdate({ target: [meetingShares.meetingId, meetingShares.recipientUserId], set: { permission: share.permission } })
      .returning({ id: meetingShares.id });
    return stored!.id;
  });
}

/** Everyone a meeting is shared with, oldest share first. */
export function sharesOfMeeting(c: Conn, meetingId: string): Promise<ShareRow[]> {
  return run(c, async (q) =>
    q
      .select({
        id: meetingShares.id,
        recipientUserId: meetingShares.recipientUserId,
        email: users.email,
        name: users.name,
        permission: meetingShares.permission,
        createdAt: meetingShares.createdAt,
      })
      .from(meetingShares)
      .innerJoin(users, eq(users.id, meetingShares.recipientUserId))
      .where(and(eq(meetingShares.meetingId, meetingId), isNull(users.deletedAt)))
      .orderBy(meetingShares.createdAt, meetingShares.id),
  );
}

/** Deletes one share of the owner's meeting; the recipient it named, or null when there was none. */
export function removeShare(c: Conn, ownerUserId: string, meetingId: string, shareId: string): Promise<string | null> {
  return run(c, async (q) => {
    const [removed] = await q
      .delete(meetingShares)
      .where(and(eq(meetingShares.id, shareId), eq(meetingShares.meetingId, meetingId), eq(meetingShares.userId, ownerUserId)))
      .returning({ recipient: meetingShares.recipientUserId });
    return removed?.recipient ?? null;
  });
}

/** What the reader may do with a meeting shared with them, and whose it is; null when it is not shared with them. */
export function shareGrant(c: Conn, recipientUserId: string, meetingId: string): Promise<ShareGrant | null> {
  return run(c, async (q) => {
    const [found] = await q
      .select({ permission: meetingShares.permission, ownerUserId: meetings.userId, ownerPlan: users.plan, ownerEmail: users.email })
      .from(meetingShares)
      .innerJoin(meetings, eq(meetings.id, meetingShares.meetingId))
      .innerJoin(users, eq(users.id, meetings.userId))
      .where(and(eq(meetingShares.meetingId, meetingId), eq(meetingShares.recipientUserId, recipientUserId), isNull(users.deletedAt), isNull(users.disabledAt)))
      .limit(1);
    return found ?? null;
  });
}

/** The meetings shared with the reader, most recently shared first (at most `limit`). */
export function meetingsSharedWith(c: Conn, recipientUserId: string, limit = 500): Promise<SharedMeetingRow[]> {
  return run(c, async (q) =>
    q
      .select({
        meetingId: meetings.id,
        title: meetings.title,
        status: meetings.status,
        recordedAt: meetings.recordedAt,
        durationSeconds: meetings.durationSeconds,
        ownerEmail: users.email,
        ownerName: users.name,
        permission: meetingShares.permission,
        sharedAt: meetingShares.createdAt,
      })
      .from(meetingShares)
      .innerJoin(meetings, eq(meetings.id, meetingShares.meetingId))
      .innerJoin(users, eq(users.id, meetings.userId))
      .where(and(eq(meetingShares.recipientUserId, recipientUserId), isNull(users.deletedAt), isNull(users.disabledAt)))
      .orderBy(desc(meetingShares.createdAt), meetingShares.id)
      .limit(limit),
  );
}

/** Deletes every share made to a user, inside an account deletion's transaction (account/store.ts). */
export async function deleteSharesTo(tx: Queryable, recipientUserId: string): Promise<void> {
  await tx.delete(meetingShares).where(eq(meetingShares.recipientUserId, recipientUserId));
}

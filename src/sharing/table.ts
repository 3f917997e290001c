import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";
import { meetings } from "../meetings/table.ts";

/** What a colleague may do with a meeting shared with them (issue 25 item 7). */
export const SHARE_PERMISSIONS = ["view", "view_and_correct"] as const;
export type SharePermission = (typeof SHARE_PERMISSIONS)[number];

/**
 * A meeting shared by its owner with another user of the same installation. `user_id` is the
 * owner's (account deletion deletes by it, and deleting the meeting cascades); the recipient's
 * shares go when the recipient's account is deleted (account/store.ts calls deleteSharesTo).
 */
export const meetingShares = sqliteTable(
  "meeting_shares",
  {
    /** shr_<random>. */
    id: text("id").primaryKey(),
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    /** The meeting's owner, who shared it. */
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    recipientUserId: text("recipient_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    permission: text("permission", { enum: SHARE_PERMISSIONS }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("meeting_shares_meeting_recipient").on(t.meetingId, t.recipientUserId), index("meeting_shares_recipient").on(t.recipientUserId, t.createdAt)],
);

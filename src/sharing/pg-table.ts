// The PostgreSQL twin of table.ts (issue 25): checked equal by src/db/schema-parity.test.ts.
import { bigint, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";
import { meetings } from "../meetings/pg-table.ts";
import { SHARE_PERMISSIONS } from "./table.ts";

export const meetingShares = pgTable(
  "meeting_shares",
  {
    id: text("id").primaryKey(),
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    recipientUserId: text("recipient_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    permission: text("permission", { enum: SHARE_PERMISSIONS }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("meeting_shares_meeting_recipient").on(t.meetingId, t.recipientUserId), index("meeting_shares_recipient").on(t.recipientUserId, t.createdAt)],
);

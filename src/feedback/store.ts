import { run, type Conn } from "../db/conn.ts";
import { feedback } from "./table.ts";

export type FeedbackRow = typeof feedback.$inferSelect;

/** Records one piece of feedback, as received. */
export function insertFeedback(c: Conn, values: Omit<typeof feedback.$inferInsert, "id" | "status">): Promise<FeedbackRow> {
  return run(c, async (q) => {
    const [inserted] = await q
      .insert(feedback)
      .values({ ...values, status: "received" })
      .returning();
    return inserted!;
  });
}

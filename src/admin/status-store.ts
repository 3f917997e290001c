import { asc, count, eq } from "drizzle-orm";
import { users } from "../auth/table.ts";
import { run, type Conn } from "../db/conn.ts";
import { webhookEndpoints } from "../webhooks/table.ts";

/** Webhook endpoints the delivery thread disabled (too many failures), counted per account. */
export function disabledWebhookEndpoints(c: Conn): Promise<Array<{ userId: string; email: string; endpoints: number }>> {
  return run(c, async (q) => {
    const found = await q
      .select({ userId: webhookEndpoints.userId, email: users.email, endpoints: count() })
      .from(webhookEndpoints)
      .innerJoin(users, eq(users.id, webhookEndpoints.userId))
      .where(eq(webhookEndpoints.enabled, false))
      .groupBy(webhookEndpoints.userId, users.email)
      .orderBy(asc(users.email));
    return found.map((r) => ({ ...r, endpoints: Number(r.endpoints) }));
  });
}

import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { NO_POLICY, type RetentionPolicy } from "./policy.ts";
import { retentionPolicies } from "./table.ts";

/** The account's policy inside the caller's query or transaction (NO_POLICY when none). */
export async function policyOf(q: Queryable, userId: string): Promise<RetentionPolicy> {
  const [found] = await q.select().from(retentionPolicies).where(eq(retentionPolicies.userId, userId)).limit(1);
  if (!found) return NO_POLICY;
  return { deleteAfterDays: found.deleteAfterDays, recordingDeleteAfterDays: found.recordingDeleteAfterDays, updatedAt: found.updatedAt };
}

export function retentionPolicy(c: Conn, userId: string): Promise<RetentionPolicy> {
  return run(c, (q) => policyOf(q, userId));
}

/** Replaces the account's policy (one row per account, written whole). */
export function storeRetentionPolicy(c: Conn, userId: string, policy: Omit<RetentionPolicy, "updatedAt">, now: number): Promise<RetentionPolicy> {
  return run(c, async (q) => {
    const values = { deleteAfterDays: policy.deleteAfterDays, recordingDeleteAfterDays: policy.recordingDeleteAfterDays, updatedAt: now };
    await q
      .insert(retentionPolicies)
      .values({ userId, ...values })
      .onConflictDoUpdate({ target: retentionPolicies.userId, set: values });
    return { ...values };
  });
}

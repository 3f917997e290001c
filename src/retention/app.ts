import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import type { Clock } from "../lib/time.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { RetentionPolicyInput } from "./schema.ts";
import type { RetentionPolicy } from "./policy.ts";
import { retentionPolicy, storeRetentionPolicy } from "./store.ts";

export { MAX_RETENTION_DAYS, retentionPolicyBody } from "./schema.ts";
export type { RetentionPolicy } from "./policy.ts";

/** The policy as GET/PUT /v1/retention answer it. */
export function renderRetentionPolicy(policy: RetentionPolicy) {
  return {
    object: "retention_policy" as const,
    delete_after_days: policy.deleteAfterDays,
    recording_delete_after_days: policy.recordingDeleteAfterDays,
    basis: "recorded_at" as const,
    updated_at: policy.updatedAt === null ? null : toRfc3339(policy.updatedAt),
  };
}

/**
 * The account's retention policy, for /v1/retention and Settings → Retention. The sweep that
 * applies it is meetings/retention-sweep.ts (it deletes through the meetings' own deletion path).
 */
export function retentionApp(deps: { conn: Conn; clock: Clock }) {
  return {
    /** The actor's policy (both periods null when none was set). */
    get(actor: Actor): Promise<RetentionPolicy> {
      return retentionPolicy(deps.conn, actor.account.userId);
    },

    /** Replaces the actor's policy (validated by retentionPolicyBody: 1..36500 days, recording before whole). */
    set(actor: Actor, input: RetentionPolicyInput): Promise<RetentionPolicy> {
      const policy = { deleteAfterDays: input.delete_after_days, recordingDeleteAfterDays: input.recording_delete_after_days };
      return storeRetentionPolicy(deps.conn, actor.account.userId, policy, deps.clock.now());
    },
  };
}

export type RetentionApp = ReturnType<typeof retentionApp>;

import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { ENTITY_KINDS, type EntityKind } from "../redaction/types.ts";
import { NO_DEFAULTS, type RedactionApplied, type RedactionDefaults } from "./redaction.ts";
import { meetings, redactionDefaults } from "./table.ts";

// The account's redaction default (redaction_defaults) and a meeting's applied redaction.

/** The account's default, or the "no default" one before it sets any. */
export async function redactionDefaultsIn(q: Queryable, userId: string): Promise<RedactionDefaults> {
  const [row] = await q.select().from(redactionDefaults).where(eq(redactionDefaults.userId, userId)).limit(1);
  if (!row) return NO_DEFAULTS;
  // Only kinds the library knows: a kind dropped by a later version is not asked for.
  const entities = ENTITY_KINDS.filter((kind) => row.entities.includes(kind));
  return { enabled: row.enabled, entities: entities.length ? entities : [...ENTITY_KINDS], audio: row.audio, caseNumberPattern: row.caseNumberPattern };
}

export function findRedactionDefaults(c: Conn, userId: string): Promise<RedactionDefaults> {
  return run(c, (q) => redactionDefaultsIn(q, userId));
}

/** Replaces the account's default. */
export function storeRedactionDefaults(c: Conn, userId: string, defaults: RedactionDefaults, now: number): Promise<void> {
  return run(c, async (q) => {
    const values = {
      enabled: defaults.enabled,
      entities: defaults.entities as EntityKind[] as string[],
      audio: defaults.audio,
      caseNumberPattern: defaults.caseNumberPattern,
      updatedAt: now,
    };
    await q.insert(redactionDefaults).values({ userId, ...values }).onConflictDoUpdate({ target: redactionDefaults.userId, set: values });
  });
}

/** What the redact step did, on the meeting's row (in the transaction that stores its transcript). */
export async function storeRedactionApplied(q: Queryable, meetingId: string, applied: RedactionApplied): Promise<void> {
  await q.update(meetings).set({ redactionApplied: applied }).where(eq(meetings.id, meetingId));
}

/** Whether the meeting asked for personal-data redaction (what insertMeeting resolved). */
export async function asksRedaction(q: Queryable, meetingId: string): Promise<boolean> {
  const [row] = await q.select({ redaction: meetings.redaction }).from(meetings).where(eq(meetings.id, meetingId)).limit(1);
  return row?.redaction != null;
}

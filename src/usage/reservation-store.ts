import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { greatest } from "../db/sql.ts";
import { usageReservations } from "./table.ts";

/** What an admitted job is expected to consume: API minor units, or web app audio seconds and documents. */
export interface Expected {
  /** Minor units the API wallet (then on-demand billing) is expected to pay. */
  cost: number;
  /** Seconds of audio the web app's monthly minutes are expected to lose. */
  audioSeconds: number;
  /** Documents (and reports written on demand) the web app's monthly documents are expected to lose. */
  documents: number;
}

export interface Reserved {
  amountMinor: number;
  audioSeconds: number;
  documents: number;
}

/** What the account's jobs still running hold on one channel, except `exceptJobId`'s own reservation. */
export async function reservedBy(db: Queryable, userId: string, channel: "api" | "webapp", exceptJobId?: string): Promise<Reserved> {
  const row = (
    await db
      .select({
        amountMinor: sql<number>`coalesce(sum(${usageReservations.amountMinor}), 0)`,
        audioSeconds: sql<number>`coalesce(sum(${usageReservations.audioSeconds}), 0)`,
        documents: sql<number>`coalesce(sum(${usageReservations.documents}), 0)`,
      })
      .from(usageReservations)
      .where(
        and(
          eq(usageReservations.userId, userId),
          eq(usageReservations.channel, channel),
          exceptJobId === undefined ? undefined : sql`${usageReservations.jobId} <> ${exceptJobId}`,
        ),
      )
  )[0]!;
  return { amountMinor: row.amountMinor, audioSeconds: row.audioSeconds, documents: row.documents };
}

/** The job's reservation, or undefined when it holds none (it ended, or was admitted before reservations). */
export async function reservationOf(db: Queryable, jobId: string) {
  return (await db.select().from(usageReservations).where(eq(usageReservations.jobId, jobId)).limit(1))[0];
}

/** Writes (or replaces) a job's reservation, inside the transaction that admits it. */
export async function reserve(tx: Queryable, job: { jobId: string; userId: string; channel: "api" | "webapp" }, expected: Expected, now: number): Promise<void> {
  const values = {
    amountMinor: job.channel === "api" ? expected.cost : 0,
    audioSeconds: job.channel === "webapp" ? Math.ceil(expected.audioSeconds) : 0,
    documents: job.channel === "webapp" ? expected.documents : 0,
    updatedAt: now,
  };
  await tx
    .insert(usageReservations)
    .values({ jobId: job.jobId, userId: job.userId, channel: job.channel, ...values, createdAt: now })
    .onConflictDoUpdate({ target: usageReservations.jobId, set: values });
}

/**
 * An operation of the job was debited (a ledger line, same transaction): its reservation shrinks
 * by what was debited, so the line and the reservation never count the same thing twice. What
 * remains is released when the job ends (the triggers of migration 0012).
 */
export async function settleDebited(tx: Queryable, jobId: string, debited: { cost: number; audioSeconds: number }, now: number): Promise<void> {
  await tx
    .update(usageReservations)
    .set({
      amountMinor: greatest(0, sql`${usageReservations.amountMinor} - ${debited.cost}`),
      audioSeconds: greatest(0, sql`${usageReservations.audioSeconds} - ${Math.round(debited.audioSeconds)}`),
      updatedAt: now,
    })
    .where(eq(usageReservations.jobId, jobId));
}

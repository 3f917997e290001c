import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { jobs } from "../jobs/table.ts";

/** Documents of a meeting asked for and not yet written (queued or being written). */
function pendingDocumentCount(db: Queryable, meetingId: string): number {
  return (
    db
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "document_generation"), inArray(jobs.status, ["queued", "processing"])))
      .get()?.n ?? 0
  );
}

/** Where a meeting's processing stands (its latest processing job), whichever channel created it. */
function processingState(db: Queryable, meetingId: string): { stage: string | null; progress: number | null } | undefined {
  return db
    .select({ stage: jobs.stage, progress: jobs.progress })
    .from(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "meeting_processing")))
    .orderBy(desc(jobs.createdAt))
    .limit(1)
    .get();
}

/** Whether the meeting's report is being written again (a report_only job queued or running). */
function reportBeingRewritten(db: Queryable, meetingId: string): boolean {
  return (
    db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "meeting_processing"), sql`json_extract(${jobs.payload}, '$.reportOnly') = 1`, inArray(jobs.status, ["queued", "processing"])))
      .get() !== undefined
  );
}

/** Where a meeting's processing and its documents stand, for the web app's page and its polling. */
export interface MeetingProgress {
  stage: string | null;
  progress: number | null;
  /** Documents asked for and not yet written. */
  pendingDocuments: number;
  /** A report being written again. */
  rewritingReport: boolean;
}

export function meetingProgress(c: Conn, meetingId: string): Promise<MeetingProgress> {
  return run(c, (q) => {
    const job = processingState(q, meetingId);
    return {
      stage: job?.stage ?? null,
      progress: job?.progress ?? null,
      pendingDocuments: pendingDocumentCount(q, meetingId),
      rewritingReport: reportBeingRewritten(q, meetingId),
    };
  });
}

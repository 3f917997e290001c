import { and, asc, count, desc, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { jobs } from "../jobs/table.ts";

/** Documents of a meeting asked for and not yet written (queued or being written). */
async function pendingDocumentCount(db: Queryable, meetingId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "document_generation"), inArray(jobs.status, ["queued", "processing"])));
  return row?.n ?? 0;
}

/** Where the meeting's oldest unfinished document stands (its document_generation job), or undefined when none is. */
async function documentState(db: Queryable, meetingId: string): Promise<{ stage: string | null; progress: number | null } | undefined> {
  const [row] = await db
    .select({ stage: jobs.stage, progress: jobs.progress })
    .from(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "document_generation"), inArray(jobs.status, ["queued", "processing"])))
    .orderBy(asc(jobs.createdAt))
    .limit(1);
  return row;
}

/** Where a meeting's processing stands (its latest processing job), whichever channel created it. */
async function processingState(db: Queryable, meetingId: string): Promise<{ stage: string | null; progress: number | null } | undefined> {
  const [row] = await db
    .select({ stage: jobs.stage, progress: jobs.progress })
    .from(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "meeting_processing")))
    .orderBy(desc(jobs.createdAt))
    .limit(1);
  return row;
}

/**
 * Whether the meeting's report is being written again (a report_only job queued or running). The
 * payload is JSON text on both dialects: the unfinished jobs of one meeting are few, so it is read
 * and decided here rather than in SQLite's or PostgreSQL's JSON functions.
 */
async function reportBeingRewritten(db: Queryable, meetingId: string): Promise<boolean> {
  const unfinished = await db
    .select({ payload: jobs.payload })
    .from(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "meeting_processing"), inArray(jobs.status, ["queued", "processing"])));
  return unfinished.some((job) => job.payload.reportOnly === true);
}

/** Where a meeting's processing and its documents stand, for the web app's page and its polling. */
export interface MeetingProgress {
  stage: string | null;
  progress: number | null;
  /** Documents asked for and not yet written. */
  pendingDocuments: number;
  /** Where the oldest of them stands (its job's stage: queued, generating), null when none is pending. */
  documentStage: string | null;
  documentProgress: number | null;
  /** A report being written again. */
  rewritingReport: boolean;
}

export function meetingProgress(c: Conn, meetingId: string): Promise<MeetingProgress> {
  return run(c, async (q) => {
    const job = await processingState(q, meetingId);
    const document = await documentState(q, meetingId);
    return {
      documentStage: document?.stage ?? null,
      documentProgress: document?.progress ?? null,
      stage: job?.stage ?? null,
      progress: job?.progress ?? null,
      pendingDocuments: await pendingDocumentCount(q, meetingId),
      rewritingReport: await reportBeingRewritten(q, meetingId),
    };
  });
}

import type { Queryable } from "../db/client.ts";
import { randomId } from "../lib/ids.ts";
import { jobs } from "./table.ts";

export interface NewJob {
  userId: string;
  kind: (typeof jobs.$inferInsert)["kind"];
  firstStep: string;
  now: number;
  source?: "api" | "webapp";
  meetingId?: string;
  documentId?: string;
  parentJobId?: string;
  transcribeOnly?: boolean;
  reportOnly?: boolean;
  documentTemplates?: string[] | null;
  metadata?: Record<string, unknown> | null;
}

/**
 * Queues a job, inside the caller's transaction (the one that creates what the job works on),
 * so a committed meeting always has its job and a rolled-back one leaves none. The scheduler
 * finds it on its next look (callers wake it after committing).
 */
export function enqueueJob(tx: Queryable, job: NewJob): string {
  const id = randomId("job");
  tx.insert(jobs)
    .values({
      id,
      userId: job.userId,
      kind: job.kind,
      status: "queued",
      stage: "queued",
      progress: 0,
      source: job.source ?? "api",
      meetingId: job.meetingId ?? null,
      documentId: job.documentId ?? null,
      parentJobId: job.parentJobId ?? null,
      transcribeOnly: job.transcribeOnly ?? null,
      reportOnly: job.reportOnly ?? null,
      documentTemplates: job.documentTemplates ?? null,
      metadata: job.metadata ?? null,
      nextStep: job.firstStep,
      createdAt: job.now,
    })
    .run();
  return id;
}

import { z } from "zod";
import { declareJobKind, payloadOf } from "../jobs/kind.ts";
import type { JobRow } from "../jobs/query.ts";

/**
 * meeting_processing as the queue sees it (jobs/kind.ts): its name, the stages of SPEC 3 its
 * steps show as, and what it keeps on each job (jobs.payload).
 */
export const meetingProcessingJob = declareJobKind({
  kind: "meeting_processing",
  stages: ["downloading", "transcribing", "summarizing"],
  payload: z.object({
    /** Transcript only: no summarize step (the meeting's transcribe_only). */
    transcribeOnly: z.boolean().optional(),
    /** A report written again from the stored (corrected) transcript: summarize only, no documents spawned. */
    reportOnly: z.boolean().optional(),
    /** With reportOnly: the meeting's first processing, of a transcript given at creation (source text): its documents spawn. */
    givenTranscript: z.boolean().optional(),
    /** The templates the meeting asked for at creation (shown as the job's document_templates). */
    documentTemplates: z.array(z.string()).nullable().optional(),
    /**
     * The meeting asked for personal-data redaction (issue 23): a redact step runs before the
     * transcript is stored. Set on the job that makes the transcript, never on a report written again.
     */
    redact: z.boolean().optional(),
    /** The document jobs queued when its report was stored (shown as document_job_ids). */
    documentJobIds: z.array(z.string()).optional(),
  }),
});

export type MeetingJobPayload = z.output<typeof meetingProcessingJob.payload>;

/** A meeting_processing job's payload, validated. */
export function meetingJobPayload(job: Pick<JobRow, "kind" | "payload">): MeetingJobPayload {
  return payloadOf(meetingProcessingJob, job);
}

import { and, desc, eq } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { jobs } from "../jobs/table.ts";

/** The latest processing job's error code of a failed meeting, whichever channel started it. */
export function failedJobCode(c: Conn, meetingId: string): Promise<string | null> {
  return run(c, async (q) => {
    const [row] = await q
      .select({ code: jobs.errorCode })
      .from(jobs)
      .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "meeting_processing"), eq(jobs.status, "failed")))
      .orderBy(desc(jobs.createdAt))
      .limit(1);
    return row?.code ?? null;
  });
}

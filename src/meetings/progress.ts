import { and, count, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { jobs } from "../jobs/table.ts";

/** Documents of a meeting asked for and not yet written (queued or being written). */
export function pendingDocumentCount(db: Queryable, meetingId: string): number {
  return (
    db
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "document_generation"), inArray(jobs.status, ["queued", "processing"])))
      .get()?.n ?? 0
  );
}

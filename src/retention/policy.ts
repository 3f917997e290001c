/** A retention policy and the dates it gives a meeting: no database here, so the meetings' renderer and the web app's pages share it. */

/** An account's retention policy as stored; days null are off. */
export interface RetentionPolicy {
  deleteAfterDays: number | null;
  recordingDeleteAfterDays: number | null;
  /** Null when the account never set one. */
  updatedAt: number | null;
}

export const NO_POLICY: RetentionPolicy = { deleteAfterDays: null, recordingDeleteAfterDays: null, updatedAt: null };

/** One day in milliseconds: the policies count whole days of 24 hours. */
export const DAY_MS = 24 * 3600 * 1000;

/**
 * When a meeting recorded at `recordedAt` is deleted whole, and when its recording is, under
 * `policy`: null for a period that is off. A meeting with no recorded_at (rows older than the
 * column, 0) counts from its creation; a meeting created without one was given its creation time.
 */
export function retentionTimes(policy: RetentionPolicy, meeting: { recordedAt: number; createdAt: number }): { deleteAt: number | null; recordingDeleteAt: number | null } {
  const from = retentionBasis(meeting);
  return {
    deleteAt: policy.deleteAfterDays === null ? null : from + policy.deleteAfterDays * DAY_MS,
    recordingDeleteAt: policy.recordingDeleteAfterDays === null ? null : from + policy.recordingDeleteAfterDays * DAY_MS,
  };
}

/** What the retention periods count from: recorded_at, or created_at where it is absent (0). */
export function retentionBasis(meeting: { recordedAt: number; createdAt: number }): number {
  return meeting.recordedAt > 0 ? meeting.recordedAt : meeting.createdAt;
}

/**
 * How many speakers to look for, from the hints a job carries. minSpeakers and maxSpeakers are
 * bounds (maxSpeakers is often only the participant count), so the count is found by threshold
 * clustering and forced into range only when it falls outside.
 */

export type ClusteringConfig = { numClusters: number; threshold: number };

export type SpeakerPlan =
  /** One speaker at most: there is nothing to tell apart. */
  | { kind: "single" }
  /** The count is known: cluster into exactly that many. */
  | { kind: "exact"; count: number }
  /** Cluster by threshold, then force the count into [min, max] if it lands outside. */
  | { kind: "range"; min: number; max: number };

const bound = (value: number | null | undefined): number | null =>
  value === null || value === undefined || !Number.isFinite(value) || value < 1 ? null : Math.floor(value);

export function planSpeakers(minSpeakers: number | null, maxSpeakers: number | null, solo: boolean): SpeakerPlan {
  if (solo) return { kind: "single" };
  const min = bound(minSpeakers) ?? 1;
  let max = bound(maxSpeakers) ?? Infinity;
  // The API refuses min > max when both are given, so this only happens when max is the
  // participant count: an explicit lower bound is the better information.
  if (min > max) max = min;
  if (max === 1) return { kind: "single" };
  if (min === max) return { kind: "exact", count: min };
  return { kind: "range", min, max };
}

/** The clustering to re-run with when threshold clustering found `found` speakers, or null if in range. */
export function clampedRerun(plan: SpeakerPlan, found: number): number | null {
  if (plan.kind !== "range" || found === 0) return null;
  if (found > plan.max) return plan.max;
  if (found < plan.min) return plan.min;
  return null;
}

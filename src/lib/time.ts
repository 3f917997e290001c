/** The service's clock, injectable so tests can move time without sleeping. */
export interface Clock {
  now(): number; // milliseconds since the epoch
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339 UTC timestamp with millisecond precision, the one format every API date uses. */
export function toRfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

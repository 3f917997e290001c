/**
 * Where a request came from, which decides how it is metered and listed (SPEC 8 rule 5): the
 * public API (the wallet, `GET /v1/jobs`) or the web app (its own monthly quotas, never listed by
 * the API). One name for it everywhere: the jobs, ledger and reservations columns, admission, the meter.
 */
export const CHANNELS = ["api", "webapp"] as const;
export type Channel = (typeof CHANNELS)[number];

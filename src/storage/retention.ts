import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../lib/time.ts";

/** A temp upload not written to for this long belongs to no live request (Bun closes idle connections after 255 s). */
export const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** A sweep's count, answered at once or by an async store. */
type Count = number | Promise<number>;

export interface RetentionDeps {
  /** Where uploads are received (the storage's tmpDir). */
  uploadsTmpDir: string;
  clock: Clock;
  /** Drops idempotency keys past their 24 hours. */
  sweepIdempotencyKeys(): void | Promise<void>;
  /** Drops revocations of tokens that have expired anyway; answers how many. */
  purgeExpiredRevocations(now: number): Count;
  /** Drops webhook deliveries past their 30 days; answers how many. */
  purgeOldDeliveries(now: number): Count;
  /** Web app sessions past their end or idle too long. */
  purgeExpiredWebSessions(now: number): Count;
  /** Deletes drafts left untouched too long, like meetings; answers how many. */
  purgeIdleDrafts(now: number): Count;
  /** Deletes the audit trail's entries past its retention (--audit-retention-days); answers how many. */
  purgeAuditTrail?(now: number): Count;
  log(line: string): void;
}

/**
 * What the service keeps only for a while, removed on a timer while it runs (not only at
 * start, since an appliance may run for months): idempotency keys after 24 h, partial uploads
 * nobody writes to any more, revoked-token rows whose token has expired anyway, webhook
 * deliveries after 30 days, and drafts nobody continued (--draft-idle-days).
 */
export async function sweepExpired(deps: RetentionDeps): Promise<{ tmpFiles: number; revocations: number; deliveries: number; webSessions: number; drafts: number; auditEntries: number }> {
  await deps.sweepIdempotencyKeys();
  const now = deps.clock.now();
  let tmpFiles = 0;
  const tmp = deps.uploadsTmpDir;
  let names: string[] = [];
  try {
    names = readdirSync(tmp);
  } catch {
    // No uploads yet.
  }
  for (const name of names) {
    const path = join(tmp, name);
    try {
      if (now - statSync(path).mtimeMs < STALE_UPLOAD_MS) continue;
      rmSync(path, { recursive: true, force: true });
      tmpFiles++;
    } catch {
      // Finished (renamed into a meeting) or removed meanwhile.
    }
  }
  return {
    tmpFiles,
    revocations: await deps.purgeExpiredRevocations(now),
    deliveries: await deps.purgeOldDeliveries(now),
    webSessions: await deps.purgeExpiredWebSessions(now),
    drafts: await deps.purgeIdleDrafts(now),
    auditEntries: (await deps.purgeAuditTrail?.(now)) ?? 0,
  };
}

/**
 * Runs sweepExpired every `intervalMs` (a tick that finds the last sweep still running skips); a
 * failed sweep is logged and tried again next time.
 */
export function startRetention(deps: RetentionDeps, intervalMs: number): { stop(): void } {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const swept = await sweepExpired(deps);
      if (swept.tmpFiles) deps.log(`retention: removed ${swept.tmpFiles} stale partial upload(s)`);
      if (swept.drafts) deps.log(`retention: deleted ${swept.drafts} draft(s) nobody continued`);
    } catch (error) {
      deps.log(`retention sweep failed: ${(error as Error).message}`);
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}

import type { Conn } from "../db/conn.ts";
import type { Clock } from "../lib/time.ts";
import { appendAuditEntries, type TimedAuditEntry } from "./store.ts";
import type { AuditEntry, AuditTrail } from "./types.ts";

export interface BatchedAuditTrailOptions {
  conn: Conn;
  clock: Clock;
  /** How long an entry may wait in memory before it is written (ms). */
  intervalMs?: number;
  /** Entries per write; a queue this long is written at once. */
  batchSize?: number;
  /** Entries held in memory at most: past it, recording waits for the write (see record). */
  maxQueued?: number;
  /** A write that failed (its entries stay queued and are tried again). */
  onError(error: unknown): void;
}

/**
 * The audit trail of a running service (issue 23). `record` stamps the entry's time and queues it
 * in memory, without touching the database on the request path; a flusher writes the queue in
 * batches, every `intervalMs` (250 ms) or as soon as `batchSize` (200) entries wait, one write at a
 * time, and `stop` writes what is left when the service stops. A write that fails keeps its
 * entries for the next one. What a crash can lose is what was queued and not yet written: at most
 * the last interval's entries (docs/decisions.md).
 */
export class BatchedAuditTrail implements AuditTrail {
  private queue: TimedAuditEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly maxQueued: number;

  constructor(private readonly options: BatchedAuditTrailOptions) {
    this.intervalMs = options.intervalMs ?? 250;
    this.batchSize = options.batchSize ?? 200;
    this.maxQueued = options.maxQueued ?? 10_000;
  }

  /** Entries waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Queues `entry`. Answers nothing while the queue has room; once it holds `maxQueued` entries
   * (the database is slow or failing), answers the write of the queue, so a caller that awaits it
   * waits for the database rather than the entry being dropped or memory growing without bound.
   */
  record(entry: AuditEntry): void | Promise<void> {
    this.queue.push({ ...entry, at: this.options.clock.now() });
    if (this.queue.length >= this.maxQueued) return this.flush();
    if (this.queue.length >= this.batchSize) this.startWriting();
    else this.timer ??= setTimeout(() => this.startWriting(), this.intervalMs);
    return undefined;
  }

  /** Writes everything queued so far; resolves once it is in the database (rejects if a write failed). */
  async flush(): Promise<void> {
    while (this.writing || this.queue.length > 0) {
      if (!this.writing) this.startWriting();
      await this.writing;
      if (this.failed) {
        const error = this.failed;
        this.failed = undefined;
        throw error;
      }
    }
  }

  /** Stops the timer and writes what is left (the service's stop, before the database closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }

  private stopped = false;
  private failed: unknown;

  /** Starts one write of up to a batch, unless one is under way (it starts the next when it ends). */
  private startWriting(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.batchSize);
    this.writing = appendAuditEntries(this.options.conn, batch, this.options.clock.now())
      .then(
        () => {
          this.failed = undefined;
        },
        (error: unknown) => {
          // Kept, in order, for the next write: an entry is lost only if the process dies first.
          this.queue.unshift(...batch);
          this.failed = error;
          this.options.onError(error);
        },
      )
      .finally(() => {
        this.writing = undefined;
        if (this.queue.length === 0) return;
        if (this.failed) {
          // Try again after an interval, not in a tight loop against a failing database.
          if (!this.stopped) this.timer ??= setTimeout(() => this.startWriting(), this.intervalMs);
        } else if (this.queue.length >= this.batchSize || this.stopped) this.startWriting();
        else this.timer ??= setTimeout(() => this.startWriting(), this.intervalMs);
      });
  }
}

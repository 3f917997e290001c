import type { Database } from "bun:sqlite";
import { run, sqliteOf, type Conn, type DbConn } from "./conn.ts";

/**
 * Deleted content leaves the write-ahead log too. A deleting transaction writes the pages without
 * the content (zeroed by secure_delete) as new frames of `verbatim.db-wal`; until a checkpoint
 * copies them, the main file still holds the old pages, and the WAL keeps the frames of earlier
 * transactions (the meeting's insert, its transcript, a correction) until it is overwritten: a
 * RESTART checkpoint only rewinds it, and later writes overwrite only as many bytes as they write.
 * A TRUNCATE checkpoint copies every frame into the main file, then cuts the WAL to zero bytes.
 *
 * It completes only when no connection is writing or reading an older snapshot (the delivery
 * thread's connection, the admin CLI, a backup's VACUUM INTO). So each try never waits (busy
 * timeout 0 for the one statement: the event loop is not blocked for the 5 s the connection
 * otherwise waits), and a busy try is repeated on a timer, doubling its delay up to
 * MAX_RETRY_DELAY_MS, for at most GIVE_UP_AFTER_MS; then one warning line, and the next deletion
 * starts again. Frames written after a deletion hold no deleted content, so one success after the
 * last deletion is enough, and tries coalesce. A try goes through the `Conn` like any statement: it
 * runs at once when no transaction is open on the connection, else as soon as the open one ends
 * (a checkpoint inside somebody's transaction could not complete).
 */
export interface WalTruncation {
  /** Called once a transaction that deleted content has committed. */
  afterDeletion(): void;
}

const FIRST_RETRY_DELAY_MS = 25;
const MAX_RETRY_DELAY_MS = 10_000;
const GIVE_UP_AFTER_MS = 15 * 60 * 1000;

export class WalTruncator implements WalTruncation {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private delayMs = FIRST_RETRY_DELAY_MS;
  private waitedMs = 0;
  private stopped = false;
  /** A try waits for the transaction open on the connection. */
  private queued = false;

  constructor(
    /** The service's connection (not a transaction: a checkpoint cannot complete inside one). */
    private readonly conn: DbConn,
    private readonly log: (line: string) => void,
  ) {}

  afterDeletion(): void {
    // PostgreSQL keeps its own WAL and reclaims deleted rows by (auto)vacuum; nothing to cut from
    // here (docs/scaling.md says what an operator sets instead).
    if (this.stopped || this.conn.dialect === "postgres") return;
    this.delayMs = FIRST_RETRY_DELAY_MS;
    this.waitedMs = 0;
    // A scheduled (or queued) try will cover this deletion too: one complete truncation is enough.
    if (this.timer === undefined && !this.queued) this.attempt();
  }

  /** Whether a try is still to come (a reader held an older snapshot at the last one, or a transaction is open). */
  get pending(): boolean {
    return this.timer !== undefined || this.queued;
  }

  /** Before the connection closes (closing the last connection checkpoints and removes the WAL anyway). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private attempt(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.queued = true;
    // The body runs synchronously when the connection is free (the usual case), else when the
    // open transaction ends; it never throws.
    run(this.conn, () => {
      this.queued = false;
      let done = false;
      try {
        done = checkpointTruncate(sqliteOf(this.conn));
      } catch (error) {
        this.log(`warning: could not checkpoint the database after a deletion (${(error as Error).message}); retrying`);
      }
      this.settle(done);
    }).catch((error: Error) => {
      // Not run at all (called inside a transaction on the same connection): tried again later.
      this.queued = false;
      this.log(`warning: could not checkpoint the database after a deletion (${error.message}); retrying`);
      this.settle(false);
    });
  }

  private settle(done: boolean): void {
    if (done || this.stopped) return;
    if (this.waitedMs >= GIVE_UP_AFTER_MS) {
      this.log("warning: the database's WAL still holds deleted content: another connection kept reading an older snapshot; the next deletion tries again");
      return;
    }
    const delay = this.delayMs;
    this.waitedMs += delay;
    this.delayMs = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
    this.timer = setTimeout(() => this.attempt(), delay);
    this.timer.unref?.();
  }
}

/**
 * One TRUNCATE checkpoint that never waits: true when every frame reached the main file and the
 * WAL was cut to zero bytes (SQLite reports `busy` 0 and an empty log), false when another
 * connection was writing or still reading older frames.
 */
export function truncateWal(c: Conn): Promise<boolean> {
  return run(c, () => checkpointTruncate(sqliteOf(c)));
}

function checkpointTruncate(sqlite: Database): boolean {
  const { timeout } = sqlite.query("PRAGMA busy_timeout").get() as { timeout: number };
  sqlite.exec("PRAGMA busy_timeout = 0");
  try {
    const result = sqlite.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number; log: number; checkpointed: number };
    return result.busy === 0 && result.log <= 0;
  } finally {
    sqlite.exec(`PRAGMA busy_timeout = ${Math.trunc(timeout)}`);
  }
}

/**
 * For a process that deletes and then exits (the admin CLI): truncateWal, tried again while
 * another connection (the running server's, its delivery thread's) is writing or still reading an
 * older snapshot, waiting a little longer each time, for at most `withinMs`. True once the WAL is
 * empty, false when every try found it in use.
 */
export async function truncateWalWithin(c: Conn, withinMs: number): Promise<boolean> {
  // PostgreSQL's WAL is the server's to recycle (docs/scaling.md); nothing to cut from here.
  if (c.dialect === "postgres") return true;
  const deadline = Date.now() + withinMs;
  let delay = FIRST_RETRY_DELAY_MS;
  for (;;) {
    if (await truncateWal(c)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await Bun.sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, 1_000);
  }
}

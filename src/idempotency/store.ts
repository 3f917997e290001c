import { and, eq, lt } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { dialectOf, run, type TxConn, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Clock } from "../lib/time.ts";
import { idempotencyKeys } from "./table.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A key in progress belongs to a request running on some node, which refreshes its `created_at`
 * every quarter of the lease while it runs. One not refreshed for the lease (--idempotency-lease,
 * 2 minutes by default) was left by a node that died (kill -9 mid-upload): the client's retry,
 * through any node, takes it over instead of being answered 409 until the key's 24 hours are over.
 */
const IN_PROGRESS_LEASE_MS = 120_000;
const MAX_KEY_LENGTH = 255;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * Records the key as done inside the caller's transaction (the `TxConn` of `withTx`), with the
 * response to replay and the id of the resource it created (deleting that resource deletes the
 * stored response).
 */
export type CompleteInTransaction = (tx: TxConn, response: StoredResponse, resourceId: string | null) => Promise<void>;

/**
 * Idempotency-Key handling (SPEC 4, Idempotency): a replay returns the first response, a different
 * body answers 422, and the same key while the first request runs answers 409. Only successful
 * responses are kept: a request refused by validation or limits may be retried with its key.
 */
export class IdempotencyStore {
  private readonly leaseMs: number;

  constructor(
    private readonly conn: Conn,
    private readonly clock: Clock,
    options: { inProgressLeaseMs?: number } = {},
  ) {
    this.leaseMs = options.inProgressLeaseMs ?? IN_PROGRESS_LEASE_MS;
  }

  /**
   * Runs `execute` at most once per (account, operation, key). `parse` reads the request and
   * returns what `execute` needs plus a hash of it; `discard` frees what parse made (a temp file)
   * when the parsed request is not executed. `parse` is told when the key already holds a finished
   * request (`replay`), so checks that only guard new work (free processing slots) do not refuse
   * the retry of a request that was accepted.
   *
   * `execute` gets `complete`, to call inside the transaction that creates the resource: the key
   * is then recorded as done in that same transaction, so no crash can leave a created resource
   * whose key a retry would not find. An execute that never calls it has its key recorded after.
   */
  async run<P>(input: {
    userId: string;
    operation: string;
    key: string | null;
    parse: (context: { replay: boolean }) => Promise<{ parsed: P; hash: string }>;
    execute: (parsed: P, complete: CompleteInTransaction) => Promise<StoredResponse>;
    discard?: (parsed: P) => Promise<void> | void;
  }): Promise<StoredResponse & { replayed: boolean }> {
    if (input.key === null) {
      const { parsed } = await input.parse({ replay: false });
      try {
        return { ...(await input.execute(parsed, async () => {})), replayed: false };
      } catch (error) {
        // Not executed (refused while creating): free what parse made, as with a key.
        await input.discard?.(parsed);
        throw error;
      }
    }
    validateKey(input.key);
    const claim = await this.claim(input.userId, input.operation, input.key);
    if (claim === "in_progress") {
      throw new ApiError("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed.");
    }
    const where = keyIs(input.userId, input.operation, input.key);
    const inProgress = and(where, eq(idempotencyKeys.status, "in_progress"));
    // While this request runs, its key shows other nodes it is alive (four beats a lease). A
    // refresh that fails (the database briefly away) is only a missed beat, not the request's error.
    const heartbeat =
      claim === "claimed"
        ? setInterval(() => {
            run(this.conn, async (q) => {
              await q.update(idempotencyKeys).set({ createdAt: this.clock.now() }).where(inProgress);
            }).catch(() => {});
          }, this.leaseMs / 4)
        : undefined;
    heartbeat?.unref();
    let parsed: P | undefined;
    try {
      const read = await input.parse({ replay: claim !== "claimed" });
      parsed = read.parsed;
      if (claim !== "claimed") {
        await input.discard?.(read.parsed);
        if (claim.requestHash !== read.hash) {
          throw new ApiError(
            "idempotency_key_reused",
            "This Idempotency-Key was already used with a different request in the last 24 hours.",
          );
        }
        return { status: claim.status, body: claim.body, replayed: true };
      }
      // Done, from in progress only: a key this request no longer holds (its lease lapsed and
      // another request took it over) is not overwritten. False then.
      const record = async (c: Conn, response: StoredResponse, resourceId: string | null): Promise<boolean> => {
        const done = await run(
          c,
          async (q) =>
            await q
              .update(idempotencyKeys)
              .set({ status: "done", requestHash: read.hash, responseStatus: response.status, responseBody: JSON.stringify(response.body), resourceId })
              .where(inProgress)
              .returning({ key: idempotencyKeys.key }),
        );
        return done.length > 0;
      };
      let completedInTransaction = false;
      const response = await input.execute(read.parsed, async (tx, stored, resourceId) => {
        // The creation must not commit under a key another request holds now: it rolls back.
        if (!(await record(tx, stored, resourceId))) throw new Error("the Idempotency-Key was taken over by another request while this one ran");
        completedInTransaction = true;
      });
      parsed = undefined; // executed: what it made now belongs to the created resource
      if (!completedInTransaction) {
        if (response.status >= 200 && response.status < 300) await record(this.conn, response, null);
        else await run(this.conn, async (q) => void (await q.delete(idempotencyKeys).where(where)));
      }
      return { ...response, replayed: false };
    } catch (error) {
      // A key completed with its resource (committed) stays: a retry replays what was created.
      // One still in progress is freed, also when `complete` ran in a transaction that rolled back.
      if (claim === "claimed") await run(this.conn, async (q) => void (await q.delete(idempotencyKeys).where(inProgress)));
      if (parsed !== undefined) await input.discard?.(parsed);
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Takes the key for this request, or reports the request that holds it. Unique across nodes
   * without a transaction: the key's primary key (account, operation, key) lets one INSERT win,
   * the others read the winner's row. A row past its time (a done key after 24 hours, a key in
   * progress whose request stopped beating) is deleted only as it was read, then the insert is
   * tried again; so is a key freed between the insert and the read.
   */
  private claim(
    userId: string,
    operation: string,
    key: string,
  ): Promise<"claimed" | "in_progress" | { requestHash: string; status: number; body: unknown }> {
    const now = this.clock.now();
    const where = keyIs(userId, operation, key);
    return run(this.conn, async (q) => {
      for (let tries = 0; tries < 3; tries += 1) {
        const inserted = await q
          .insert(idempotencyKeys)
          .values({ userId, operation, key, status: "in_progress", createdAt: now })
          .onConflictDoNothing()
          .returning({ key: idempotencyKeys.key });
        if (inserted.length) return "claimed" as const;
        const [row] = await q.select().from(idempotencyKeys).where(where).limit(1);
        if (!row) continue;
        const lasts = row.status === "in_progress" ? this.leaseMs : IDEMPOTENCY_TTL_MS;
        if (row.createdAt > now - lasts) {
          if (row.status === "in_progress") return "in_progress" as const;
          return { requestHash: row.requestHash!, status: row.responseStatus!, body: JSON.parse(row.responseBody!) };
        }
        await q.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.status, row.status), eq(idempotencyKeys.createdAt, row.createdAt)));
      }
      // Three requests in a row took the key between our insert and our read: one of them holds it.
      return "in_progress" as const;
    });
  }

  /**
   * At start: drops expired keys, and frees keys left in progress by a request that died with its
   * process. On SQLite this process is the only one (the data dir's lock), so every key in progress
   * is such a key; on PostgreSQL other nodes' requests are running, so only keys whose heartbeat
   * stopped are freed.
   */
  async recover(): Promise<void> {
    const abandoned = dialectOf(this.conn) === "sqlite" ? undefined : lt(idempotencyKeys.createdAt, this.clock.now() - this.leaseMs);
    await run(this.conn, async (q) => void (await q.delete(idempotencyKeys).where(and(eq(idempotencyKeys.status, "in_progress"), abandoned))));
    await this.sweep();
  }

  async sweep(): Promise<void> {
    const before = this.clock.now() - IDEMPOTENCY_TTL_MS;
    await run(this.conn, async (q) => void (await q.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before))));
  }
}

function keyIs(userId: string, operation: string, key: string) {
  return and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.operation, operation), eq(idempotencyKeys.key, key));
}

/** Deletes the stored responses of the requests that created a resource, with the resource. */
export async function forgetResource(db: Queryable, resourceId: string): Promise<void> {
  await db.delete(idempotencyKeys).where(eq(idempotencyKeys.resourceId, resourceId));
}

function validateKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw ApiError.validation([
      {
        field: "Idempotency-Key",
        code: key.length > MAX_KEY_LENGTH ? "too_long" : "invalid_format",
        message: `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID v4 is recommended).`,
      },
    ]);
  }
}

/** sha256 of a canonical JSON form: the same request in another key order hashes the same. */
export function hashRequest(value: unknown): string {
  return new Bun.CryptoHasher("sha256").update(canonicalJson(value)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

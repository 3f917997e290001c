import { and, eq, lt } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type TxConn, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Clock } from "../lib/time.ts";
import { idempotencyKeys } from "./table.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * Records the key as done inside the caller's transaction, with the response to replay and the
 * id of the resource it created (deleting that resource deletes the stored response). Synchronous,
 * so it runs inside a synchronous transaction body (`tx` a Queryable: `runTx`, `run(tx, (q) => …)`)
 * as well as inside an async one (`tx` the `TxConn` of `withTx`).
 */
export type CompleteInTransaction = (tx: Queryable | TxConn, response: StoredResponse, resourceId: string | null) => void;

/** The open transaction's statements, synchronously: the connection is the transaction's while it is open. */
function inTransaction(tx: Queryable | TxConn): Queryable {
  if ((tx as TxConn).kind !== "tx") return tx as Queryable;
  const open = tx as TxConn;
  if (!open.active) throw new Error("an idempotency key was completed in a transaction that has already ended");
  return open.drizzle as unknown as Queryable;
}

/**
 * Idempotency-Key handling (SPEC 4, Idempotency): a replay returns the first response, a different
 * body answers 422, and the same key while the first request runs answers 409. Only successful
 * responses are kept: a request refused by validation or limits may be retried with its key.
 */
export class IdempotencyStore {
  constructor(
    private readonly conn: Conn,
    private readonly clock: Clock,
  ) {}

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
        return { ...(await input.execute(parsed, () => {})), replayed: false };
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
    const where = and(
      eq(idempotencyKeys.userId, input.userId),
      eq(idempotencyKeys.operation, input.operation),
      eq(idempotencyKeys.key, input.key),
    );
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
      const record = (q: Queryable, response: StoredResponse, resourceId: string | null) => {
        q.update(idempotencyKeys)
          .set({
            status: "done",
            requestHash: read.hash,
            responseStatus: response.status,
            responseBody: JSON.stringify(response.body),
            resourceId,
          })
          .where(where)
          .run();
      };
      let completedInTransaction = false;
      const response = await input.execute(read.parsed, (tx, stored, resourceId) => {
        record(inTransaction(tx), stored, resourceId);
        completedInTransaction = true;
      });
      parsed = undefined; // executed: what it made now belongs to the created resource
      if (!completedInTransaction) {
        if (response.status >= 200 && response.status < 300) await run(this.conn, (q) => record(q, response, null));
        else await run(this.conn, (q) => q.delete(idempotencyKeys).where(where).run());
      }
      return { ...response, replayed: false };
    } catch (error) {
      // A key completed with its resource (committed) stays: a retry replays what was created.
      // One still in progress is freed, also when `complete` ran in a transaction that rolled back.
      if (claim === "claimed") await run(this.conn, (q) => q.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.status, "in_progress"))).run());
      if (parsed !== undefined) await input.discard?.(parsed);
      throw error;
    }
  }

  /** Takes the key for this request, or reports the request that holds it. */
  private claim(
    userId: string,
    operation: string,
    key: string,
  ): Promise<"claimed" | "in_progress" | { requestHash: string; status: number; body: unknown }> {
    const now = this.clock.now();
    return runTx(this.conn, (tx) => {
      const where = and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.operation, operation), eq(idempotencyKeys.key, key));
      const row = tx.select().from(idempotencyKeys).where(where).get();
      if (row && row.createdAt > now - IDEMPOTENCY_TTL_MS) {
        if (row.status === "in_progress") return "in_progress" as const;
        return { requestHash: row.requestHash!, status: row.responseStatus!, body: JSON.parse(row.responseBody!) };
      }
      if (row) tx.delete(idempotencyKeys).where(where).run();
      tx.insert(idempotencyKeys).values({ userId, operation, key, status: "in_progress", createdAt: now }).run();
      return "claimed" as const;
    });
  }

  /** At start: no request survives a restart, so keys left in progress are freed. Also drops expired keys. */
  async recover(): Promise<void> {
    await run(this.conn, (q) => q.delete(idempotencyKeys).where(eq(idempotencyKeys.status, "in_progress")).run());
    await this.sweep();
  }

  async sweep(): Promise<void> {
    const before = this.clock.now() - IDEMPOTENCY_TTL_MS;
    await run(this.conn, (q) => q.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).run());
  }
}

/** Deletes the stored responses of the requests that created a resource, with the resource. */
export function forgetResource(db: Queryable, resourceId: string): void {
  db.delete(idempotencyKeys).where(eq(idempotencyKeys.resourceId, resourceId)).run();
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

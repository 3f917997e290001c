import { AsyncLocalStorage } from "node:async_hooks";
import type { Database as Sqlite } from "bun:sqlite";
import { openDatabase, type Db, type Queryable } from "./client.ts";
import type { PgConn, PgTx } from "./pg-conn.ts";

/**
 * The async face of the database: what every store function takes. A `Conn` is either the
 * database itself (`DbConn`: each call its own statement, or its own short transaction) or an
 * open transaction (`TxConn`, from `withTx`). Code outside the stores holds a `Conn` without
 * knowing what is behind it: one SQLite connection (the appliance), or a PostgreSQL pool
 * (`--database-url`, db/pg-conn.ts), where a transaction is one pooled connection from BEGIN to
 * COMMIT.
 *
 * SQLite here is one synchronous connection, so an async transaction owns the whole connection
 * from BEGIN to COMMIT: while one is open, every other caller's statement waits its turn in a
 * queue instead of running inside somebody else's transaction (which is what would happen if an
 * `await` inside the transaction let another request's query reach the shared connection). A
 * `run` body holds the connection the same way until it settles, for the same reason.
 */
export type Conn = DbConn | TxConn;
export type DbConn = SqliteConn | PgConn;
export type TxConn = SqliteTx | PgTx;
export type Dialect = "sqlite" | "postgres";

export class SqliteConn {
  readonly kind = "db" as const;
  readonly dialect = "sqlite" as const;
  /** The transaction (or `run` body) that owns the connection, if any. */
  owner: SqliteTx | null = null;
  private readonly waiting: Array<{ start(): void }> = [];
  private savepoints = 0;

  constructor(
    /** For stores and db/ only. */
    readonly drizzle: Db,
  ) {}

  /** The raw SQLite connection, for db/ (migrations, checkpoints, backups). */
  get sqlite(): Sqlite {
    return this.drizzle.$client;
  }

  /** Runs `start` now when nothing owns the connection, else when the owner ends. */
  enter(start: () => void): void {
    if (!this.owner && this.waiting.length === 0) start();
    else this.waiting.push({ start });
  }

  /** The owner ended: hand the connection on, in arrival order. */
  release(): void {
    this.owner = null;
    while (!this.owner && this.waiting.length > 0) this.waiting.shift()!.start();
  }

  nextSavepoint(): string {
    this.savepoints += 1;
    return `sp_${this.savepoints}`;
  }

  async close(): Promise<void> {
    this.drizzle.$client.close();
  }
}

export class SqliteTx {
  readonly kind = "tx" as const;
  readonly dialect = "sqlite" as const;
  /** False once committed or rolled back: using it then is a bug, refused loudly. */
  active = true;
  constructor(
    readonly db: SqliteConn,
    /** A `run` body's hold on the connection, not a transaction: a `withTx` inside it is refused. */
    readonly holdOnly = false,
  ) {}
  get drizzle(): Db {
    return this.db.drizzle;
  }
}

/** Which transaction (or `run` body) the current async call chain runs inside, to catch a root call that would deadlock. */
const currentTx = new AsyncLocalStorage<TxConn>();

export function rootOf(c: Conn): DbConn {
  return c.kind === "db" ? c : c.db;
}

/** Opens the service database (SQLite file) as a `Conn`. */
export function openConn(path: string): SqliteConn {
  return connOf(openDatabase(path));
}

/** One SqliteConn per connection: two would keep two queues, and one's statement could run inside the other's transaction. */
const connsByDatabase = new WeakMap<Db, SqliteConn>();

/** The `Conn` of a drizzle SQLite database already open (tests, the delivery thread's own connection). */
export function connOf(db: Db): SqliteConn {
  let conn = connsByDatabase.get(db);
  if (!conn) {
    conn = new SqliteConn(db);
    connsByDatabase.set(db, conn);
  }
  return conn;
}

function refuseRootCallInside(c: DbConn): Error | undefined {
  const inside = currentTx.getStore();
  if (inside?.active && inside.db === c) {
    return new Error("a store was called with the database inside a transaction on it: pass the transaction instead");
  }
  return undefined;
}

/**
 * Runs one body of drizzle statements on `c`: inside the transaction when `c` is one, else on the
 * database (SQLite: holding the connection until the body settles, so no other caller's
 * transaction can begin between its statements; PostgreSQL: each statement on a pooled
 * connection). Every statement is awaited (`await q.select()…`, never `.all()`/`.get()`/`.run()`,
 * which PostgreSQL has not), so the same body runs on both dialects. For store files only.
 */
export function run<T>(c: Conn, body: (q: Queryable) => T | Promise<T>): Promise<T> {
  if (c.kind === "tx") {
    if (!c.active) return Promise.reject(new Error("a store was called with a transaction that has already ended"));
    return settle(() => body(c.drizzle as Queryable));
  }
  const refused = refuseRootCallInside(c);
  if (refused) return Promise.reject(refused);
  if (c.dialect === "postgres") return settle(() => body(c.drizzle as unknown as Queryable));
  const hold = new SqliteTx(c, true);
  return new Promise<T>((resolve, reject) => {
    c.enter(() => {
      c.owner = hold;
      currentTx
        .run(hold, () => settle(() => body(c.drizzle)))
        .then(resolve, reject)
        .finally(() => {
          hold.active = false;
          c.release();
        });
    });
  });
}

/**
 * Runs a body in a transaction of its own, or in a savepoint of the transaction `c` when it is
 * one. A body that throws rolls back. For store files only.
 */
export function runTx<T>(c: Conn, body: (q: Queryable) => T | Promise<T>): Promise<T> {
  return withTx(c, (tx) => run(tx, body));
}

/**
 * Runs `body` in one transaction: committed when it resolves, rolled back when it throws or
 * rejects. Inside it, pass `tx` (never the database) to every store call; the connection is the
 * transaction's until it ends, so keep slow work (files, engines, the network) outside. Nested
 * in another transaction it is a savepoint of it. SQLite: BEGIN IMMEDIATE, so two transactions
 * are serialised before either reads. PostgreSQL: READ COMMITTED; what must be serialised per
 * account takes `lockAccount` (db/locks.ts) first.
 */
export async function withTx<T>(c: Conn, body: (tx: TxConn) => Promise<T>): Promise<T> {
  if (c.kind === "tx") {
    if (!c.active) throw new Error("a transaction was nested in one that has already ended");
    if (c.dialect === "postgres") return c.savepoint(() => body(c));
    if (c.holdOnly) throw new Error("a transaction was opened inside a store's run body: use runTx on the database instead");
    const sqlite = c.db.sqlite;
    const name = c.db.nextSavepoint();
    sqlite.exec(`SAVEPOINT ${name}`);
    try {
      const result = await body(c);
      sqlite.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      sqlite.exec(`ROLLBACK TO ${name}`);
      sqlite.exec(`RELEASE ${name}`);
      throw error;
    }
  }
  const refused = refuseRootCallInside(c);
  if (refused) throw new Error("a transaction was opened on the database inside another: pass the transaction instead");
  if (c.dialect === "postgres") {
    const tx = await c.begin();
    try {
      const result = await currentTx.run(tx, () => body(tx));
      await tx.commit();
      return result;
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }
  const tx = new SqliteTx(c);
  await new Promise<void>((resolve) =>
    c.enter(() => {
      c.owner = tx;
      resolve();
    }),
  );
  try {
    c.sqlite.exec("BEGIN IMMEDIATE");
  } catch (error) {
    tx.active = false;
    c.release();
    throw error;
  }
  try {
    const result = await currentTx.run(tx, () => body(tx));
    c.sqlite.exec("COMMIT");
    return result;
  } catch (error) {
    rollbackQuietly(c.sqlite);
    throw error;
  } finally {
    tx.active = false;
    c.release();
  }
}

function rollbackQuietly(sqlite: Sqlite): void {
  // A failed COMMIT or a statement error may already have ended the transaction.
  if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
}

function settle<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The raw SQLite connection of `c`, for db/ only (migrations, checkpoints, integrity checks); throws on PostgreSQL. */
export function sqliteOf(c: Conn): Sqlite {
  const root = rootOf(c);
  if (root.dialect !== "sqlite") throw new Error("this needs the SQLite database; the service runs on PostgreSQL");
  return root.sqlite;
}

/** Which database `c` is on, for the few stores whose SQL differs (db/sql.ts). */
export function dialectOf(c: Conn): Dialect {
  return c.dialect;
}

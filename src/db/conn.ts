import { AsyncLocalStorage } from "node:async_hooks";
import type { Database as Sqlite } from "bun:sqlite";
import { openDatabase, type Db, type Queryable } from "./client.ts";

/**
 * The async face of the database: what every store function takes. A `Conn` is either the
 * database itself (each call its own statement, or its own short transaction) or an open
 * transaction (`withTx`). Code outside the stores holds a `Conn` without knowing what is behind
 * it: today one SQLite connection, tomorrow a PostgreSQL pool (the pool's connection per
 * transaction is what a `TxConn` stands for).
 *
 * SQLite here is one synchronous connection, so an async transaction owns the whole connection
 * from BEGIN to COMMIT: while one is open, every other caller's statement waits its turn in a
 * queue instead of running inside somebody else's transaction (which is what would happen if an
 * `await` inside the transaction let another request's query reach the shared connection). A
 * statement run while no transaction is open runs at once, synchronously, behind a resolved promise.
 */
export type Conn = DbConn | TxConn;

export class DbConn {
  readonly kind = "db" as const;
  /** The transaction that owns the connection, if any. */
  owner: TxConn | null = null;
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

  /** Runs `start` now when no transaction owns the connection, else when the owner ends. */
  enter(start: () => void): void {
    if (!this.owner && this.waiting.length === 0) start();
    else this.waiting.push({ start });
  }

  /** The owning transaction ended: hand the connection on, in arrival order. */
  release(): void {
    this.owner = null;
    while (!this.owner && this.waiting.length > 0) this.waiting.shift()!.start();
  }

  nextSavepoint(): string {
    this.savepoints += 1;
    return `sp_${this.savepoints}`;
  }

  close(): void {
    this.drizzle.$client.close();
  }
}

export class TxConn {
  readonly kind = "tx" as const;
  /** False once committed or rolled back: using it then is a bug, refused loudly. */
  active = true;
  constructor(readonly db: DbConn) {}
}

/** Which transaction the current async call chain runs inside (to catch a root call that would deadlock). */
const currentTx = new AsyncLocalStorage<TxConn>();

function rootOf(c: Conn): DbConn {
  return c.kind === "db" ? c : c.db;
}

/** Opens the service database (SQLite file) as a `Conn`. */
export function openConn(path: string): DbConn {
  return connOf(openDatabase(path));
}

/** One DbConn per connection: two would keep two queues, and one's statement could run inside the other's transaction. */
const connsByDatabase = new WeakMap<Db, DbConn>();

/** The `Conn` of a drizzle database already open (the composition root, tests, the delivery thread's own connection). */
export function connOf(db: Db): DbConn {
  let conn = connsByDatabase.get(db);
  if (!conn) {
    conn = new DbConn(db);
    connsByDatabase.set(db, conn);
  }
  return conn;
}

/**
 * Runs one synchronous body of drizzle statements on `c`: inside the transaction when `c` is one,
 * else as soon as no transaction owns the connection. The body never awaits, so nothing else can
 * reach the connection while it runs. For store files only.
 */
export function run<T>(c: Conn, body: (q: Queryable) => T): Promise<T> {
  if (c.kind === "tx") {
    if (!c.active) return Promise.reject(new Error("a store was called with a transaction that has already ended"));
    return settle(() => body(c.db.drizzle));
  }
  const inside = currentTx.getStore();
  if (inside?.active && inside.db === c) {
    return Promise.reject(new Error("a store was called with the database inside a transaction on it: pass the transaction instead"));
  }
  return new Promise<T>((resolve, reject) => {
    c.enter(() => {
      try {
        resolve(body(c.drizzle));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * Runs a synchronous body in a transaction of its own (BEGIN IMMEDIATE, so two of them are
 * serialised before either reads), or in a savepoint of the transaction `c` when it is one. A
 * body that throws rolls back. For store files only.
 */
export function runTx<T>(c: Conn, body: (q: Queryable) => T): Promise<T> {
  if (c.kind === "tx") {
    return run(c, (q) => inSavepoint(c.db, () => body(q)));
  }
  return run(c, (q) => {
    const sqlite = c.sqlite;
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      const result = body(q);
      sqlite.exec("COMMIT");
      return result;
    } catch (error) {
      rollbackQuietly(sqlite);
      throw error;
    }
  });
}

/**
 * Runs `body` in one transaction: committed when it resolves, rolled back when it throws or
 * rejects. Inside it, pass `tx` (never the database) to every store call; the connection is the
 * transaction's until it ends, so keep slow work (files, engines, the network) outside. Nested
 * in another transaction it is a savepoint of it.
 */
export async function withTx<T>(c: Conn, body: (tx: TxConn) => Promise<T>): Promise<T> {
  if (c.kind === "tx") {
    if (!c.active) throw new Error("a transaction was nested in one that has already ended");
    const name = c.db.nextSavepoint();
    c.db.sqlite.exec(`SAVEPOINT ${name}`);
    try {
      const result = await body(c);
      c.db.sqlite.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      c.db.sqlite.exec(`ROLLBACK TO ${name}`);
      c.db.sqlite.exec(`RELEASE ${name}`);
      throw error;
    }
  }
  if (currentTx.getStore()?.active && currentTx.getStore()!.db === c) {
    throw new Error("a transaction was opened on the database inside another: pass the transaction instead");
  }
  const tx = new TxConn(c);
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

function inSavepoint<T>(db: DbConn, body: () => T): T {
  const name = db.nextSavepoint();
  db.sqlite.exec(`SAVEPOINT ${name}`);
  try {
    const result = body();
    db.sqlite.exec(`RELEASE ${name}`);
    return result;
  } catch (error) {
    db.sqlite.exec(`ROLLBACK TO ${name}`);
    db.sqlite.exec(`RELEASE ${name}`);
    throw error;
  }
}

function rollbackQuietly(sqlite: Sqlite): void {
  // A failed COMMIT or a statement error may already have ended the transaction.
  if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
}

function settle<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The raw connection of `c`, for db/ only (migrations, checkpoints, integrity checks). */
export function sqliteOf(c: Conn): Sqlite {
  return rootOf(c).sqlite;
}

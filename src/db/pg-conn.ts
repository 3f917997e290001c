import pg from "pg";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";

// int8 (count(*), bigint columns: millisecond times, minor units, byte sizes) and numeric (sum()
// of bigints) arrive as numbers, as they do from SQLite: every such value here is far below 2^53.
// Process-wide because drizzle's node-postgres driver reads the global parsers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export interface PgConnOptions {
  /** Connections this process may hold at once (API node: requests; worker: its steps). */
  poolSize?: number;
  /** Shown in pg_stat_activity, to tell the nodes apart. */
  applicationName?: string;
}

/**
 * The PostgreSQL face of a `Conn` (db/conn.ts): a pool; each `withTx` takes one of its
 * connections from BEGIN to COMMIT. Stores never see it: they get drizzle through `run`.
 */
export class PgConn {
  readonly kind = "db" as const;
  readonly dialect = "postgres" as const;
  readonly pool: pg.Pool;
  readonly drizzle: NodePgDatabase;

  constructor(url: string, options: PgConnOptions = {}) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? "verbatim",
      // A connection that cannot be had within this time is an outage, answered 503, not a hang.
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle pooled connection that the server drops (restart, failover) must not crash the process;
    // the pool opens a new one on the next query.
    this.pool.on("error", () => {});
    this.drizzle = drizzle({ client: this.pool });
  }

  /** BEGIN on a connection of its own, for `withTx`. */
  async begin(): Promise<PgTx> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    return new PgTx(this, client);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export class PgTx {
  readonly kind = "tx" as const;
  readonly dialect = "postgres" as const;
  active = true;
  readonly drizzle: NodePgDatabase;
  private savepoints = 0;

  constructor(
    readonly db: PgConn,
    readonly client: pg.PoolClient,
  ) {
    this.drizzle = drizzle({ client });
  }

  /** A nested `withTx`: a savepoint, rolled back to when `body` throws. */
  async savepoint<T>(body: () => Promise<T>): Promise<T> {
    this.savepoints += 1;
    const name = `sp_${this.savepoints}`;
    await this.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await body();
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      throw error;
    }
  }

  async commit(): Promise<void> {
    try {
      await this.client.query("COMMIT");
    } finally {
      this.end();
    }
  }

  async rollback(): Promise<void> {
    let broken: Error | undefined;
    try {
      await this.client.query("ROLLBACK");
    } catch (error) {
      // The connection is in an unknown state: the pool must not hand it out again.
      broken = error as Error;
    } finally {
      this.end(broken);
    }
  }

  private end(broken?: Error): void {
    if (!this.active) return;
    this.active = false;
    this.client.release(broken);
  }
}

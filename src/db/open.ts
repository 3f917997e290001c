import { openConn, type DbConn } from "./conn.ts";
import { databasePath } from "./paths.ts";
import { PgConn } from "./pg-conn.ts";

/**
 * The service's database: PostgreSQL when a URL is given (several nodes share it), else the data
 * dir's SQLite file (the appliance). Not yet migrated: the caller runs migrateConn.
 */
export function openServiceConn(dataDir: string, database?: { url: string; poolSize: number }, applicationName = "verbatim"): DbConn {
  if (database) return new PgConn(database.url, { poolSize: database.poolSize, applicationName });
  return openConn(databasePath(dataDir));
}

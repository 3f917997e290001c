import { userInfo } from "node:os";
import { appendAuditEntries } from "../../audit/store.ts";
import { adminCliEntry, type AuditDetail } from "../../audit/types.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hashPassword, passwordProblem } from "../../auth/passwords.ts";
import { parseScopeList, type Scope } from "../../auth/scopes.ts";
import type { User } from "../../auth/users.ts";
import { getUserByEmail } from "../../auth/user-store.ts";
import type { Conn, DbConn } from "../../db/conn.ts";
import { migrateConn } from "../../db/migrate.ts";
import { openServiceConn } from "../../db/open.ts";
import { databaseSettings } from "../../config.ts";
import { resolve } from "node:path";
import { UsageError, type OptionSpec, type OptionValues } from "../options.ts";

/** What the admin commands share: their options, the database they open, the user an email names. */

export const JSON_OPTION: OptionSpec = { name: "json", type: "bool", help: "Print JSON instead of text." };
export const EMAIL_OPTION: OptionSpec = { name: "email", type: "string", required: true, help: "The user's email address." };

export const SCOPES_OPTION: OptionSpec = { name: "scopes", type: "string", required: true, valueName: "a,b,c|all", help: "Scopes, comma-separated, or all." };

/** The scopes --scopes names, an unknown one refused. */
export function scopesOf(values: OptionValues): Scope[] {
  try {
    return parseScopeList(values.scopes as string);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export const PASSWORD_OPTION: OptionSpec = {
  name: "password",
  type: "string",
  valueName: "P|-",
  help: `Web app password (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters); - reads it from standard input, which keeps it out of the process list and shell history.`,
};

/**
 * Opens the service's database (migrated), as a store `Conn`: the data dir's SQLite file, or the
 * PostgreSQL database --database-url names (the one the nodes share).
 */
export async function openAdminConn(values: OptionValues): Promise<DbConn> {
  const conn = openServiceConn(resolve(values["data-dir"] as string), databaseSettings(values), "verbatim-admin");
  try {
    await migrateConn(conn);
  } catch (error) {
    await conn.close();
    throw error;
  }
  return conn;
}

/** Admin commands open the same database as a running server; WAL and the busy timeout (SQLite), or the server's own concurrency (PostgreSQL), make that safe. */
export async function withConn<T>(values: OptionValues, work: (conn: DbConn) => Promise<T>): Promise<T> {
  const conn = await openAdminConn(values);
  try {
    return await work(conn);
  } finally {
    await conn.close();
  }
}

/** The shell user running `verbatim admin`, the credential id of what they do (null when the system names none). */
function operator(): string | null {
  try {
    return userInfo().username || null;
  } catch {
    return null;
  }
}

/**
 * Records what an administrator did at a shell to an account (audit/), written at once: a command
 * is a short process with no flusher. Credential type admin_cli, channel cli, the OS user as its id.
 */
export function auditAdminAction(c: Conn, accountId: string, action: string, resource: { type: string; id: string } | null, detail?: AuditDetail): Promise<void> {
  return appendAuditEntries(c, [adminCliEntry(accountId, action, resource, operator(), detail)], Date.now());
}

export async function requireUser(c: Conn, email: string): Promise<User> {
  const user = await getUserByEmail(c, email);
  if (!user) throw new UsageError(`no user with email ${email}; create one with: admin user create --email ${email}`);
  return user;
}

/** The Argon2id hash of the password given (or read from stdin for "-"), refused when too short or long. */
export async function passwordHashFrom(value: string): Promise<string> {
  const password = value === "-" ? (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "") : value;
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem);
  return hashPassword(password);
}

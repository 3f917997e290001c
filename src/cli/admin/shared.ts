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
import { adminApp, isAdminRefusal, type AdminApp, type AdminDeps, type ManagedUser } from "../../admin/app.ts";
import { ApiError } from "../../errors/api-error.ts";
import { systemClock } from "../../lib/time.ts";
import { BatchedAuditTrail } from "../../audit/trail.ts";

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

/**
 * Records what an administrator did at a shell to an account (audit/), written at once: a command
 * is a short process with no flusher. Credential type admin_cli, channel cli, the OS user as its id.
 */
export function auditAdminAction(c: Conn, accountId: string, action: string, resource: { type: string; id: string } | null, detail?: AuditDetail): Promise<void> {
  return appendAuditEntries(c, [adminCliEntry(accountId, action, resource, OPERATOR.cli.operator, detail)], Date.now());
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

/**
 * Runs an administration use case (admin/app.ts, shared with the web app's console) as the
 * operator at the shell (OPERATOR): its refusals become usage errors (exit 2) with their sentence,
 * and what it recorded in the audit trail is written before the database closes.
 */
export async function withAdminApp<T>(values: OptionValues, work: (admin: AdminApp, conn: DbConn) => Promise<T>, status?: AdminDeps["status"]): Promise<T> {
  return withConn(values, async (conn) => {
    const { admin, flush } = adminOf(values, conn, status);
    try {
      return await work(admin, conn);
    } catch (error) {
      if (isAdminRefusal(error)) throw new UsageError(error.message);
      if (error instanceof ApiError && error.status === 404) throw new UsageError(error.message);
      throw error;
    } finally {
      await flush();
    }
  });
}

/** The administration use cases over an open connection, as the shell's operator; `flush` writes their audit entries (before the connection closes). */
export function adminOf(values: OptionValues, conn: DbConn, status?: AdminDeps["status"]): { admin: AdminApp; flush(): Promise<void> } {
  const audit = new BatchedAuditTrail({ conn, clock: systemClock, onError: () => {} });
  const admin = adminApp({
    conn,
    clock: systemClock,
    audit,
    publicUrl: () => publicUrlOf(values),
    // Another process: the server's key cache sees this connection's commits (data_version, or no cache on PostgreSQL).
    onCredentialsChanged: () => {},
    status,
  });
  return { admin, flush: () => audit.stop() };
}

/** The user an email names, as the console lists them, or a usage error. */
export async function requireManagedUser(admin: AdminApp, conn: DbConn, email: string): Promise<ManagedUser> {
  return admin.user(OPERATOR, (await requireUser(conn, email)).id);
}

export const LINK_HOURS_OPTION: OptionSpec = { name: "link-hours", type: "int", default: "24", help: "How long the sign-in link works, in hours (1 to 720)." };

/** The sign-in link's lifetime --link-hours asks for, in ms. */
export function linkTtlOf(values: OptionValues): number {
  const hours = Number(values["link-hours"]);
  if (!Number.isInteger(hours) || hours < 1 || hours > 720) throw new UsageError("--link-hours must be a whole number of hours from 1 to 720");
  return hours * 3600_000;
}

/** The service's public URL, which sign-in links are built on: required where a link is made. */
function publicUrlOf(values: OptionValues): string {
  const url = values["public-url"] as string | undefined;
  if (!url) throw new UsageError("a sign-in link needs the service's public URL: give --public-url (or VERBATIM_PUBLIC_URL), as the server's");
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`--public-url is not an http(s) URL: ${url}`);
  return url.replace(/\/+$/, "");
}

/** Who runs `verbatim admin` at the shell, as the audit trail names them: the OS user, when known. */
export function shellOperator(): { cli: { operator: string | null } } {
  let operator: string | null = null;
  try {
    operator = userInfo().username.slice(0, 100) || null;
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): the entry names no one.
  }
  return { cli: { operator } };
}

/** The caller every admin command passes to the administration use cases. */
export const OPERATOR = shellOperator();

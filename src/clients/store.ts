import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { parseNumericId } from "../lib/ids.ts";
import { clients } from "./table.ts";

/**
 * The client folders' store. The synchronous functions over a `Queryable` are called by other
 * domains inside their own transactions (a meeting created or patched with a client); the async
 * ones over a `Conn` are the use cases' (clients/app.ts).
 */
export type ClientRow = typeof clients.$inferSelect;

export function createClient(
  db: Queryable,
  userId: string,
  input: { name: string; email?: string | null; phone?: string | null; isArchived?: boolean },
  now = Date.now(),
): ClientRow {
  return db
    .insert(clients)
    .values({
      userId,
      name: input.name,
      email: input.email ?? null,
      phone: input.phone ?? null,
      isArchived: input.isArchived ?? false,
      createdAt: now,
    })
    .returning()
    .get();
}

/**
 * The account's client folders by name. The name filter runs here rather than in SQL because
 * SQLite's LIKE folds case for ASCII only, and a firm's client names are not ASCII-only.
 */
export function listClients(c: Conn, userId: string, filter: { includeArchived: boolean; q?: string }): Promise<ClientRow[]> {
  return run(c, (q) => {
    const rows = q
      .select()
      .from(clients)
      .where(filter.includeArchived ? eq(clients.userId, userId) : and(eq(clients.userId, userId), eq(clients.isArchived, false)))
      .all();
    const needle = filter.q?.trim().toLocaleLowerCase();
    const matching = needle ? rows.filter((r) => r.name.toLocaleLowerCase().includes(needle)) : rows;
    return matching.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  });
}

export function getClient(db: Queryable, userId: string, id: number): ClientRow | undefined {
  return db
    .select()
    .from(clients)
    .where(and(eq(clients.userId, userId), eq(clients.id, id)))
    .get();
}

/**
 * Archives or unarchives one of the account's clients; undefined when it has no such client.
 * An archived client keeps its meetings and can still be named by id; it is only left out of
 * lists (GET /v1/clients without include_archived).
 */
export function setClientArchived(c: Conn, userId: string, id: number, archived: boolean): Promise<ClientRow | undefined> {
  return run(c, (q) =>
    q
      .update(clients)
      .set({ isArchived: archived })
      .where(and(eq(clients.userId, userId), eq(clients.id, id)))
      .returning()
      .get(),
  );
}

/**
 * The account's client named by a body's `client_id` (cli_<n>). One that is not the account's, or
 * does not exist, is a wrong value of that field: 400 validation_error with `unknown_client`, like
 * an unknown template, not a 404 (the request's path names no client).
 */
export function requireClient(db: Queryable, userId: string, clientId: string, field = "client_id"): ClientRow {
  const id = parseNumericId("cli", clientId);
  const client = id === null ? undefined : getClient(db, userId, id);
  if (!client) {
    throw ApiError.validation([{ field, code: "unknown_client", message: `There is no client ${clientId} in your account; GET /v1/clients lists them.` }]);
  }
  return client;
}

/**
 * The account's client with this name (compared without case, Unicode-aware: SQLite's NOCASE
 * folds ASCII only), else a new one.
 */
export function findOrCreateClient(
  db: Queryable,
  userId: string,
  input: { name: string; email?: string | null; phone?: string | null },
  now = Date.now(),
): ClientRow {
  const wanted = input.name.toLocaleLowerCase();
  const existing = db
    .select()
    .from(clients)
    .where(eq(clients.userId, userId))
    .all()
    .find((c) => c.name.toLocaleLowerCase() === wanted);
  return existing ?? createClient(db, userId, input, now);
}

/** A client given by cli_ id or exact name (the meetings filter takes either). */
export function findClientByIdOrName(db: Queryable, userId: string, idOrName: string): ClientRow | undefined {
  const id = parseNumericId("cli", idOrName);
  if (id !== null) return getClient(db, userId, id);
  return db
    .select()
    .from(clients)
    .where(and(eq(clients.userId, userId), eq(clients.name, idOrName)))
    .get();
}

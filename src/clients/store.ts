import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { parseNumericId } from "../lib/ids.ts";
import { clients } from "./table.ts";

/**
 * The client folders' store. The functions over a `Queryable` are called by other domains inside
 * their own transactions (a meeting created or patched with a client); those over a `Conn` are the
 * use cases' (clients/app.ts).
 */
export type ClientRow = typeof clients.$inferSelect;

type NewClient = { name: string; email?: string | null; phone?: string | null; isArchived?: boolean };

function clientValues(userId: string, input: NewClient, now: number) {
  return {
    userId,
    name: input.name,
    email: input.email ?? null,
    phone: input.phone ?? null,
    isArchived: input.isArchived ?? false,
    createdAt: now,
  };
}

export async function createClient(db: Queryable, userId: string, input: NewClient, now = Date.now()): Promise<ClientRow> {
  const [created] = await db.insert(clients).values(clientValues(userId, input, now)).returning();
  return created!;
}

/**
 * The account's client folders by name. The name filter runs here rather than in SQL because
 * SQLite's LIKE folds case for ASCII only, and a firm's client names are not ASCII-only.
 */
export function listClients(c: Conn, userId: string, filter: { includeArchived: boolean; q?: string }): Promise<ClientRow[]> {
  return run(c, async (q) => {
    const rows = await q
      .select()
      .from(clients)
      .where(filter.includeArchived ? eq(clients.userId, userId) : and(eq(clients.userId, userId), eq(clients.isArchived, false)));
    const needle = filter.q?.trim().toLocaleLowerCase();
    const matching = needle ? rows.filter((r) => r.name.toLocaleLowerCase().includes(needle)) : rows;
    return matching.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  });
}

export async function getClient(db: Queryable, userId: string, id: number): Promise<ClientRow | undefined> {
  const [found] = await db
    .select()
    .from(clients)
    .where(and(eq(clients.userId, userId), eq(clients.id, id)))
    .limit(1);
  return found;
}

/**
 * Archives or unarchives one of the account's clients, and/or sets or lifts its legal hold;
 * undefined when it has no such client. An archived client keeps its meetings and can still be
 * named by id; it is only left out of lists (GET /v1/clients without include_archived). The hold
 * is written under the account's lock, which the transactions deleting a meeting take before they
 * read it (meetings/delete.ts), so a hold set here is never overtaken by a deletion in progress.
 */
export function updateClientFlags(c: Conn, userId: string, id: number, flags: { isArchived?: boolean; legalHold?: boolean }): Promise<ClientRow | undefined> {
  return runTx(c, async (q) => {
    await lockAccount(q, userId);
    const where = and(eq(clients.userId, userId), eq(clients.id, id));
    if (flags.isArchived === undefined && flags.legalHold === undefined) return (await q.select().from(clients).where(where).limit(1))[0];
    const [updated] = await q.update(clients).set(flags).where(where).returning();
    return updated;
  });
}

/**
 * The account's client named by a body's `client_id` (cli_<n>). One that is not the account's, or
 * does not exist, is a wrong value of that field: 400 validation_error with `unknown_client`, like
 * an unknown template, not a 404 (the request's path names no client).
 */
export async function requireClient(db: Queryable, userId: string, clientId: string, field = "client_id"): Promise<ClientRow> {
  const id = parseNumericId("cli", clientId);
  const client = id === null ? undefined : await getClient(db, userId, id);
  if (!client) {
    throw ApiError.validation([{ field, code: "unknown_client", message: `There is no client ${clientId} in your account; GET /v1/clients lists them.` }]);
  }
  return client;
}

/**
 * The account's client with this name (compared without case, Unicode-aware: SQLite's NOCASE
 * folds ASCII only), else a new one.
 *
 * The unique index on (user_id, name without case) is what makes it one folder per name: on
 * PostgreSQL two transactions may both find no such client and both insert (nothing serialises
 * them, unlike SQLite's BEGIN IMMEDIATE); the second insert then waits for the first to commit,
 * conflicts and inserts nothing, and the folder the first created is read back by the same
 * comparison as the index's (lower(), ASCII-only on SQLite like NOCASE, the index's own on
 * PostgreSQL).
 */
export async function findOrCreateClient(
  db: Queryable,
  userId: string,
  input: { name: string; email?: string | null; phone?: string | null },
  now = Date.now(),
): Promise<ClientRow> {
  const wanted = input.name.toLocaleLowerCase();
  const existing = (await db.select().from(clients).where(eq(clients.userId, userId))).find((c) => c.name.toLocaleLowerCase() === wanted);
  if (existing) return existing;
  const [created] = await db.insert(clients).values(clientValues(userId, input, now)).onConflictDoNothing().returning();
  if (created) return created;
  const [raced] = await db
    .select()
    .from(clients)
    .where(and(eq(clients.userId, userId), sql`lower(${clients.name}) = lower(${input.name})`))
    .limit(1);
  return raced!;
}

/** A client given by cli_ id or exact name (the meetings filter takes either). */
export async function findClientByIdOrName(db: Queryable, userId: string, idOrName: string): Promise<ClientRow | undefined> {
  const id = parseNumericId("cli", idOrName);
  if (id !== null) return getClient(db, userId, id);
  const [found] = await db
    .select()
    .from(clients)
    .where(and(eq(clients.userId, userId), eq(clients.name, idOrName)))
    .limit(1);
  return found;
}

/** What naming a client folder came to: the folder, or another of the account's folders already has the name (compared without case). */
export type NamingOutcome = { kind: "named"; client: ClientRow } | { kind: "name_taken" } | { kind: "not_found" };

/**
 * A new client folder, or its new name (`id` given), under the account's lock so that no two of
 * its folders share a name (compared without case, Unicode-aware, as find-or-create compares).
 */
export function nameClient(c: Conn, userId: string, name: string, id: number | null, now: number): Promise<NamingOutcome> {
  return runTx(c, async (q) => {
    await lockAccount(q, userId);
    const wanted = name.toLocaleLowerCase();
    const mine = await q.select().from(clients).where(eq(clients.userId, userId));
    if (id !== null && !mine.some((client) => client.id === id)) return { kind: "not_found" };
    if (mine.some((client) => client.id !== id && client.name.toLocaleLowerCase() === wanted)) return { kind: "name_taken" };
    if (id === null) return { kind: "named", client: await createClient(q, userId, { name }, now) };
    const [renamed] = await q
      .update(clients)
      .set({ name })
      .where(and(eq(clients.userId, userId), eq(clients.id, id)))
      .returning();
    return { kind: "named", client: renamed! };
  });
}

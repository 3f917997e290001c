import { and, count, eq, inArray, sql } from "drizzle-orm";
import { users } from "../auth/table.ts";
import type { Queryable } from "../db/client.ts";
import { runTx, type Conn } from "../db/conn.ts";
import { exec, isPostgres, lockAccount, rows } from "../db/sql.ts";
import { jobs } from "../jobs/table.ts";
import { deleteMeetingRows } from "../meetings/delete-store.ts";
import { meetings } from "../meetings/table.ts";
import { deleteSharesTo } from "../sharing/store.ts";
import { ledgerLines } from "../usage/table.ts";

/** The account still has jobs that a running server may be processing: nothing was deleted. */
export class AccountBusy extends Error {
  constructor(readonly unfinishedJobs: number) {
    super(`the account has ${unfinishedJobs} queued or processing job(s)`);
    this.name = "AccountBusy";
  }
}

/**
 * Tables with a `user_id` column whose rows outlive the account. Ledger lines are immutable
 * (triggers refuse UPDATE and DELETE, SPEC 2) and hold only ids, quantities and money.
 */
const KEPT_TABLES = new Set(["ledger_lines"]);

/**
 * Deletes an account's rows, in one immediate transaction: each meeting with all that holds its
 * content (meetings/delete-store.ts: search index, events, stored responses, documents and requests,
 * transcript, report, corrections, draft parts), then every row of every table that has a
 * `user_id` column (jobs, webhook endpoints and deliveries, API keys, web sessions, external
 * identities, clients, feedback, events, stored responses, credit grants, spend cap, alerts, and
 * any table added later, e.g. usage reservations), except the ledger's. The user row goes too,
 * unless ledger lines name it (their foreign key needs it): then it stays as a tombstone, with its
 * email, name, password hash and language cleared and `deleted_at` set, which no lookup finds and
 * for which triggers refuse new rows. secure_delete (db/client.ts) overwrites the freed bytes.
 *
 * With `refuseUnfinishedJobs`, an account with queued or processing jobs is refused with
 * AccountBusy; the check is in the deleting transaction, so no job slips in between. Answers the
 * deleted meetings' ids (their folders are the caller's to remove: account/app.ts).
 */
export function deleteAccountRows(
  c: Conn,
  userId: string,
  options: { refuseUnfinishedJobs: boolean; now: number },
): Promise<{ meetingIds: string[]; ledgerLinesKept: number }> {
  return runTx(c, async (tx) => {
    // PostgreSQL: no admission for the account (which takes the same lock) queues a job between
    // the check below and the deletes; SQLite's BEGIN IMMEDIATE already keeps every writer out.
    await lockAccount(tx, userId);
    if (options.refuseUnfinishedJobs) {
      const unfinished = await unfinishedJobCount(tx, userId);
      if (unfinished > 0) throw new AccountBusy(unfinished);
    }
    // SQLite: the rows are deleted table by table; their foreign keys are checked once, at the
    // commit. PostgreSQL's are not deferrable: there the tables come children first.
    if (!isPostgres(tx)) await exec(tx, sql`PRAGMA defer_foreign_keys = ON`);
    const meetingIds: string[] = [];
    for (const { id } of await tx.select({ id: meetings.id }).from(meetings).where(eq(meetings.userId, userId))) {
      await deleteMeetingRows(tx, id);
      meetingIds.push(id);
    }
    // Meetings colleagues shared with this account (its own shares go with its meetings and user_id).
    await deleteSharesTo(tx, userId);
    for (const table of await tablesWithUserId(tx)) {
      if (!KEPT_TABLES.has(table)) await exec(tx, sql`DELETE FROM ${sql.identifier(table)} WHERE user_id = ${userId}`);
    }
    const ledgerLinesKept = (await tx.select({ n: count() }).from(ledgerLines).where(eq(ledgerLines.userId, userId)))[0]?.n ?? 0;
    if (ledgerLinesKept === 0) {
      await tx.delete(users).where(eq(users.id, userId));
    } else {
      await tx
        .update(users)
        .set({ email: `deleted:${userId}`, name: null, passwordHash: null, locale: null, deletedAt: options.now })
        .where(eq(users.id, userId));
    }
    return { meetingIds, ledgerLinesKept };
  });
}

async function unfinishedJobCount(tx: Queryable, userId: string): Promise<number> {
  const [unfinished] = await tx
    .select({ n: count() })
    .from(jobs)
    .where(and(eq(jobs.userId, userId), inArray(jobs.status, ["queued", "processing"])));
  return unfinished?.n ?? 0;
}

/**
 * Every table of the database with a `user_id` column, read from the schema itself (SQLite's
 * catalogue, or PostgreSQL's current schema), in an order that deletes can follow: on PostgreSQL,
 * each table before those its foreign keys name (its rows must go before the rows they point at).
 */
async function tablesWithUserId(q: Queryable): Promise<string[]> {
  if (!isPostgres(q)) {
    const found = await rows<{ name: string }>(
      q,
      sql`SELECT m.name AS name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'user_id' ORDER BY m.name`,
    );
    return found.map((row) => row.name);
  }
  const tables = await rows<{ name: string }>(
    q,
    sql`SELECT c.table_name AS name FROM information_schema.columns c
        JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND c.column_name = 'user_id' AND t.table_type = 'BASE TABLE'`,
  );
  // pg_constraint rather than information_schema, whose constraint views show only the tables
  // owned by the current role (the service's role need not own the schema).
  const references = await rows<ForeignKey>(
    q,
    sql`SELECT child.relname AS child, parent.relname AS parent FROM pg_catalog.pg_constraint k
        JOIN pg_catalog.pg_class child ON child.oid = k.conrelid
        JOIN pg_catalog.pg_class parent ON parent.oid = k.confrelid
        WHERE k.contype = 'f' AND child.relnamespace = to_regnamespace(current_schema()) AND parent.relnamespace = child.relnamespace`,
  );
  return childrenFirst(
    tables.map((row) => row.name),
    references,
  );
}

/** A foreign key of table `child` naming table `parent`. */
export interface ForeignKey {
  child: string;
  parent: string;
}

/**
 * `tables` ordered so that every table comes before each table of the list its foreign keys name,
 * ties by name. A table's key naming itself is left out: one DELETE removes all its rows of the
 * account, and PostgreSQL checks a NO ACTION key at the end of the statement. A loop between two
 * tables has no such order: refused, since no statement-by-statement delete could satisfy it.
 */
export function childrenFirst(tables: string[], references: ForeignKey[]): string[] {
  const left = new Set(tables);
  const edges = references.filter((r) => r.child !== r.parent && left.has(r.child) && left.has(r.parent));
  const ordered: string[] = [];
  while (left.size > 0) {
    // Deletable now: no table still to delete has a key naming it.
    const ready = [...left].filter((table) => !edges.some((e) => e.parent === table && left.has(e.child))).sort();
    if (ready.length === 0) throw new Error(`the foreign keys between ${[...left].sort().join(", ")} form a loop: their rows cannot be deleted table by table`);
    for (const table of ready) {
      ordered.push(table);
      left.delete(table);
    }
  }
  return ordered;
}

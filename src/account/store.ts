import { and, count, eq, inArray } from "drizzle-orm";
import { users } from "../auth/table.ts";
import type { Queryable } from "../db/client.ts";
import { runTx, sqliteOf, type Conn } from "../db/conn.ts";
import { jobs } from "../jobs/table.ts";
import { deleteMeetingRows } from "../meetings/delete-store.ts";
import { meetings } from "../meetings/table.ts";
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
  const sqlite = sqliteOf(c);
  return runTx(c, async (tx) => {
    if (options.refuseUnfinishedJobs) {
      const unfinished = unfinishedJobCount(tx, userId);
      if (unfinished > 0) throw new AccountBusy(unfinished);
    }
    // The rows are deleted table by table; their foreign keys are checked once, at the commit.
    sqlite.exec("PRAGMA defer_foreign_keys = ON");
    const meetingIds: string[] = [];
    for (const { id } of tx.select({ id: meetings.id }).from(meetings).where(eq(meetings.userId, userId)).all()) {
      await deleteMeetingRows(tx, id);
      meetingIds.push(id);
    }
    for (const table of tablesWithUserId(sqlite)) {
      if (!KEPT_TABLES.has(table)) sqlite.prepare(`DELETE FROM "${table}" WHERE user_id = ?`).run(userId);
    }
    const ledgerLinesKept = tx.select({ n: count() }).from(ledgerLines).where(eq(ledgerLines.userId, userId)).get()?.n ?? 0;
    if (ledgerLinesKept === 0) {
      tx.delete(users).where(eq(users.id, userId)).run();
    } else {
      tx.update(users)
        .set({ email: `deleted:${userId}`, name: null, passwordHash: null, locale: null, deletedAt: options.now })
        .where(eq(users.id, userId))
        .run();
    }
    return { meetingIds, ledgerLinesKept };
  });
}

function unfinishedJobCount(tx: Queryable, userId: string): number {
  return (
    tx
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.userId, userId), inArray(jobs.status, ["queued", "processing"])))
      .get()?.n ?? 0
  );
}

/** Every table of the database with a `user_id` column, read from the schema itself. */
function tablesWithUserId(sqlite: ReturnType<typeof sqliteOf>): string[] {
  return (
    sqlite
      .query(
        "SELECT m.name AS name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'user_id' ORDER BY m.name",
      )
      .all() as { name: string }[]
  ).map((row) => row.name);
}

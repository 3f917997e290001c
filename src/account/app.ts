import type { Account } from "../auth/actor.ts";
import type { DbConn } from "../db/conn.ts";
import { removeMeetingFiles } from "../meetings/delete.ts";
import type { Storage } from "../storage/storage.ts";
import { deleteAccountRows } from "./store.ts";

export { AccountBusy } from "./store.ts";

export interface AccountDeleted {
  meetings: number;
  /** Ledger lines that name the account: immutable, so its row stays as a tombstone (no email, name or password). */
  ledgerLinesKept: number;
}

/**
 * The account's use cases. GET /v1/me has none: it renders the principal the authenticator
 * already holds and reads nothing, so it answers without a promise (bench/api.ts holds it to half
 * of Elysia's hello-world); see docs/decisions.md.
 */
export function accountApp(deps: { conn: DbConn; storage: Storage; now?: () => number }) {
  return {
    /**
     * Deletes an account and everything of it (account/store.ts: every row but its ledger lines,
     * its user row kept as a tombstone when they name it), then its meetings' folders. With
     * `refuseUnfinishedJobs` (a server is running, and its workers may be processing the
     * account's jobs, which this process cannot stop), an account with queued or processing jobs
     * is refused with AccountBusy and nothing is deleted. The caller then truncates the WAL.
     */
    async delete(account: Pick<Account, "userId">, options: { refuseUnfinishedJobs: boolean }): Promise<AccountDeleted> {
      const { meetingIds, ledgerLinesKept } = await deleteAccountRows(deps.conn, account.userId, {
        refuseUnfinishedJobs: options.refuseUnfinishedJobs,
        now: deps.now?.() ?? Date.now(),
      });
      for (const id of meetingIds) await removeMeetingFiles(deps.storage, id);
      return { meetings: meetingIds.length, ledgerLinesKept };
    },
  };
}

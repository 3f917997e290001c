import type { Conn } from "../db/conn.ts";
import { exportAuditEntries, listAuditEntries, purgeAuditEntries, type AuditFilter, type AuditPage, type AuditRow } from "./store.ts";
import type { AuditedActor } from "./types.ts";

export type { AuditRow, AuditFilter, AuditPage };
// The web app names actions through this module (its only door to audit/: test/architecture.test.ts).
export type { AuditAction } from "./actions.ts";

/** A page of the trail: narrowed by action kinds, a resource id, a time range. */
export interface AuditQuery {
  kinds?: readonly string[];
  resourceId?: string;
  since?: number;
  until?: number;
  limit: number;
  /** The `next` of the page before. */
  after?: [number, number];
}

export type AuditApp = ReturnType<typeof auditApp>;

/** The audit trail's use cases: an account owner's activity (Settings → Activity), every account's for an administrator. */
export function auditApp(deps: { conn: Conn; /** How long an entry is kept (ms): --audit-retention-days. */ retentionMs: number }) {
  const filterOf = (query: AuditQuery, accountId?: string): AuditFilter => ({
    ...(accountId !== undefined ? { accountId } : {}),
    ...(query.kinds?.length ? { kinds: query.kinds } : {}),
    ...(query.resourceId ? { resourceId: query.resourceId } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
    ...(query.until !== undefined ? { until: query.until } : {}),
  });
  return {
    /** The acting account's own entries, newest first: only ever its own account's. */
    activity(actor: AuditedActor, query: AuditQuery): Promise<AuditPage> {
      return listAuditEntries(deps.conn, filterOf(query, actor.account.userId), query);
    },
    /**
     * Every account's entries (or one account's), newest first: for the admin console, whose caller
     * must already have checked that the actor is an administrator.
     */
    everyAccount(query: AuditQuery & { accountId?: string }): Promise<AuditPage> {
      return listAuditEntries(deps.conn, filterOf(query, query.accountId), query);
    },
    /** The retention sweep's part: deletes the entries older than the retention; answers how many. */
    purgeExpired(now: number): Promise<number> {
      return purgeAuditEntries(deps.conn, now - deps.retentionMs);
    },
    /** Entries oldest first, streamed in batches (the SIEM export). */
    export(filter: AuditFilter): AsyncGenerator<AuditRow> {
      return exportAuditEntries(deps.conn, filter);
    },
  };
}

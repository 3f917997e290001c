import { AUDIT_ACTIONS } from "../../audit/actions.ts";
import { exportAuditEntries, type AuditRow } from "../../audit/store.ts";
import { NO_ACCOUNT } from "../../audit/types.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION } from "../../config-options.ts";
import { toRfc3339 } from "../../lib/time.ts";
import type { Command } from "../command.ts";
import { UsageError } from "../options.ts";
import { auditAdminAction, requireUser, withConn } from "./shared.ts";

/** A time the options name: an ISO 8601 date (2026-01-31, UTC midnight) or date and time. */
function timeOption(values: Record<string, unknown>, name: string): number | undefined {
  const text = values[name] as string | undefined;
  if (text === undefined) return undefined;
  const at = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`--${name} must be an ISO 8601 date or time, e.g. 2026-01-31 or 2026-01-31T08:00:00Z`);
  return at;
}

/** One entry as a JSON line: snake_case fields, the time in RFC 3339 and in ms. */
export function auditJsonLine(row: AuditRow): string {
  return JSON.stringify({
    id: row.id,
    at: toRfc3339(row.at),
    at_ms: row.at,
    account_id: row.accountId,
    actor_user_id: row.actorUserId,
    credential_type: row.credentialType,
    credential_id: row.credentialId,
    channel: row.channel,
    action: row.action,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    client_address: row.clientAddress,
    detail: row.detail,
  });
}

/** `admin audit ...`: the audit trail, for a SIEM. */
export const auditCommands: Record<string, Command> = {
  "audit export": {
    usage: "verbatim admin audit export --since <ISO date> [--until <ISO date>] [--account <user id or email>]",
    summary:
      "Write the audit trail's entries from --since (inclusive) to --until (exclusive), oldest first, as JSON lines on stdout for a SIEM: read in batches, never all in memory. The export itself is recorded in the trail.",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      { name: "since", type: "string", required: true, valueName: "ISO date", help: "The first time to export (2026-01-31 or 2026-01-31T08:00:00Z)." },
      { name: "until", type: "string", valueName: "ISO date", help: "Export entries before this time (default: now)." },
      { name: "account", type: "string", valueName: "user id|email", help: "Only this account's entries (a deleted account's by its id)." },
    ],
    async run(values, out) {
      const since = timeOption(values, "since")!;
      const until = timeOption(values, "until");
      if (until !== undefined && until <= since) throw new UsageError("--until must be after --since");
      const account = (values.account as string | undefined)?.trim();
      if (account !== undefined && (account === "" || account.length > 320)) throw new UsageError("--account must be a user id or an email address");
      await withConn(values, async (conn) => {
        const accountId = account === undefined ? undefined : account.includes("@") ? (await requireUser(conn, account.toLowerCase())).id : account;
        let lines = 0;
        for await (const row of exportAuditEntries(conn, { since, ...(until !== undefined ? { until } : {}), ...(accountId !== undefined ? { accountId } : {}) })) {
          out(auditJsonLine(row));
          lines++;
        }
        // Reading the trail out is itself recorded: whose, what span, how many entries.
        await auditAdminAction(conn, accountId ?? NO_ACCOUNT, AUDIT_ACTIONS.auditExported, null, { since: toRfc3339(since), until: until === undefined ? null : toRfc3339(until), entries: lines, all_accounts: accountId === undefined });
      });
    },
  },
};

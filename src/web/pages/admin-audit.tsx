import type { AuditRow, ManagedUser } from "../../admin/app.ts";
import { Layout, NextPageLink, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import { AdminNav } from "./admin-users.tsx";

/** The filters the audit page was asked for, as typed (shown back in the form). */
export interface AuditFilters {
  account?: string;
  kind?: string;
  resource?: string;
  since?: string;
  until?: string;
}

/** Every account's audit trail, newest first, with filters: who did what to which resource, from where, never content. */
export function AdminAuditPage(props: {
  frame: PageFrame;
  rows: AuditRow[];
  users: ManagedUser[];
  kinds: readonly string[];
  filters: AuditFilters;
  nextHref: string | null;
  notice?: PageNotice;
}) {
  const { frame, filters } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "short", timeStyle: "medium", timeZone: "UTC" });
  const emailOf = new Map(props.users.map((u) => [u.id, u.email]));
  const who = (row: AuditRow) => (row.actorUserId ? (emailOf.get(row.actorUserId) ?? row.actorUserId) : row.credentialType === "admin_cli" ? `admin_cli${row.credentialId ? ` (${row.credentialId})` : ""}` : row.credentialType);
  return (
    <Layout frame={frame}>
      <h1>{t("admin.title")}</h1>
      <AdminNav frame={frame} current="audit" />
      <Notice notice={props.notice} />
      <p class="muted">{t("admin.auditIntro")}</p>
      <form class="inline-form" method="get" action="/admin/audit">
        <label>
          {t("admin.account")}
          <select name="account">
            <option value="">—</option>
            {props.users.map((u) => (
              <option value={u.id} selected={filters.account === u.id}>
                {u.email}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("admin.action")}
          <select name="kind">
            <option value="">—</option>
            {props.kinds.map((kind) => (
              <option value={kind} selected={filters.kind === kind}>
                {kind}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("admin.resource")}
          <input name="resource" value={filters.resource} maxLength={100} />
        </label>
        <label>
          {t("admin.since")}
          <input name="since" type="date" value={filters.since} />
        </label>
        <label>
          {t("admin.until")}
          <input name="until" type="date" value={filters.until} />
        </label>
        <button type="submit">{t("admin.filter")}</button>
      </form>
      {props.rows.length === 0 ? (
        <p class="muted">{t("admin.noAudit")}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("admin.when")}</th>
              <th scope="col">{t("admin.account")}</th>
              <th scope="col">{t("admin.action")}</th>
              <th scope="col">{t("admin.who")}</th>
              <th scope="col" class="optional">
                {t("admin.resource")}
              </th>
              <th scope="col" class="optional">
                {t("admin.origin")}
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr data-action={row.action} data-account={row.accountId}>
                <td>{date.format(new Date(row.at))}</td>
                <td>{emailOf.get(row.accountId) ?? row.accountId}</td>
                <td>
                  <code>{row.action}</code>
                </td>
                <td>
                  {who(row)} · {row.channel}
                </td>
                <td class="optional">{row.resourceId ? `${row.resourceType ?? ""} ${row.resourceId}` : ""}</td>
                <td class="optional">{row.clientAddress ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPageLink frame={frame} href={props.nextHref} />
    </Layout>
  );
}

import type { MonthlyUse } from "../../admin/app.ts";
import { Layout, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import { AdminNav } from "./admin-users.tsx";

/** The firm's metered use per user and month (the ledger), with the months it covers. */
export function AdminUsagePage(props: { frame: PageFrame; from: string; to: string; rows: MonthlyUse[]; currency: string; notice?: PageNotice }) {
  const { frame } = props;
  const { t } = frame;
  const money = new Intl.NumberFormat(frame.locale, { style: "currency", currency: props.currency });
  const minutes = new Intl.NumberFormat(frame.locale, { maximumFractionDigits: 1 });
  return (
    <Layout frame={frame}>
      <h1>{t("admin.title")}</h1>
      <AdminNav frame={frame} current="usage" />
      <Notice notice={props.notice} />
      <p class="muted">{t("admin.usageIntro")}</p>
      <form class="inline-form" method="get" action="/admin/usage">
        <label>
          {t("admin.from")}
          <input name="from" value={props.from} pattern="\d{4}-\d{2}" maxLength={7} />
        </label>
        <label>
          {t("admin.to")}
          <input name="to" value={props.to} pattern="\d{4}-\d{2}" maxLength={7} />
        </label>
        <button type="submit">{t("admin.show")}</button>
      </form>
      {props.rows.length === 0 ? (
        <p class="muted">{t("admin.noUsage")}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("admin.month")}</th>
              <th scope="col">{t("admin.email")}</th>
              <th scope="col">{t("admin.audioMinutes")}</th>
              <th scope="col">{t("admin.reports")}</th>
              <th scope="col">{t("admin.documents")}</th>
              <th scope="col">{t("admin.amountCol")}</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr data-user={r.userId} data-period={r.period}>
                <td>{r.period}</td>
                <td>{r.email}</td>
                <td data-field="audio-minutes">{minutes.format(r.audioSeconds / 60)}</td>
                <td data-field="reports">{r.reports}</td>
                <td data-field="documents">{r.documents}</td>
                <td data-field="amount" data-minor={r.amount}>
                  {money.format(r.amount / 100)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

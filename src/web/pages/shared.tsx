import type { SharedMeetingRow } from "../../sharing/app.ts";
import type { MessageKey } from "../i18n.ts";
import { Layout, type PageFrame } from "../layout.tsx";

/** "Shared with me": the meetings colleagues shared with the signed-in user (issue 25 item 7). */
export function SharedPage({ frame, rows }: { frame: PageFrame; rows: SharedMeetingRow[] }) {
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeZone: "UTC" });
  return (
    <Layout frame={frame}>
      <h1>{t("shared.title")}</h1>
      <p class="muted">{t("shared.intro")}</p>
      {rows.length === 0 ? (
        <p>{t("shared.none")}</p>
      ) : (
        <table class="shared-list">
          <thead>
            <tr>
              <th scope="col">{t("shared.meeting")}</th>
              <th scope="col" class="optional">{t("shared.date")}</th>
              <th scope="col">{t("shared.owner")}</th>
              <th scope="col">{t("shared.access")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                <td>
                  <a href={`/meetings/${row.meetingId}`}>{row.title}</a>{" "}
                  <span class={`badge ${row.status}`}>{t(`status.${row.status}` as MessageKey)}</span>
                </td>
                <td class="optional">{date.format(new Date(row.recordedAt))}</td>
                <td>{row.ownerName ? `${row.ownerName} <${row.ownerEmail}>` : row.ownerEmail}</td>
                <td>{t(`share.permission.${row.permission}` as MessageKey)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

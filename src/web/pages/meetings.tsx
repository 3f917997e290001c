import type { MeetingView } from "../../meetings/app.ts";
import { Layout, NextPageLink, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import type { MessageKey } from "../i18n.ts";

/** What a line of the list shows of a meeting (the meeting as the meetings side renders it). */
export type MeetingListEntry = Pick<MeetingView, "id" | "title" | "status" | "recorded_at" | "created_at" | "duration_seconds">;

export interface MeetingFilters {
  q?: string;
  client?: string;
  tag?: string;
  status?: string;
  recorded_after?: string;
  recorded_before?: string;
  on_hold?: string;
}

const STATUSES = ["draft", "queued", "processing", "completed", "failed"] as const;

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return "";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

export function MeetingsPage(props: { frame: PageFrame; rows: MeetingListEntry[]; filters: MeetingFilters; nextHref: string | null; error?: string; notice?: PageNotice }) {
  const { frame, rows, filters } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  return (
    <Layout frame={frame}>
      <div class="title-row">
        <h1>{t("meetings.title")}</h1>
        <span class="actions">
          <a class="button secondary" href="/clients">
            {t("clients.title")}
          </a>{" "}
          <a class="button" href="/meetings/new">
            {t("upload.title")}
          </a>
        </span>
      </div>
      <Notice notice={props.notice} />
      <form class="filters" method="get" action="/meetings" role="search">
        <label>
          {t("meetings.search")}
          <input type="search" name="q" value={filters.q ?? ""} maxLength={500} />
        </label>
        <label>
          {t("meetings.client")}
          <input name="client" value={filters.client ?? ""} maxLength={200} />
        </label>
        <label>
          {t("meetings.tag")}
          <input name="tag" value={filters.tag ?? ""} maxLength={50} />
        </label>
        <label>
          {t("meetings.status")}
          <select name="status">
            <option value="">{t("meetings.any")}</option>
            {STATUSES.map((s) => (
              <option value={s} selected={filters.status === s}>
                {t(`status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("meetings.onHold")}
          <select name="on_hold">
            <option value="">{t("meetings.any")}</option>
            <option value="true" selected={filters.on_hold === "true"}>
              {t("meetings.onHoldOnly")}
            </option>
            <option value="false" selected={filters.on_hold === "false"}>
              {t("meetings.notOnHold")}
            </option>
          </select>
        </label>
        <label>
          {t("meetings.from")}
          <input type="date" name="recorded_after" value={filters.recorded_after ?? ""} />
        </label>
        <label>
          {t("meetings.to")}
          <input type="date" name="recorded_before" value={filters.recorded_before ?? ""} />
        </label>
        <button type="submit">{t("meetings.filter")}</button>
      </form>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      {rows.length === 0 ? (
        <p class="muted">{t("meetings.none")}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("meetings.col.title")}</th>
              <th scope="col" class="optional">
                {t("meetings.col.recorded")}
              </th>
              <th scope="col" class="optional">
                {t("meetings.col.duration")}
              </th>
              <th scope="col">{t("meetings.status")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr>
                <td>
                  <a href={`/meetings/${m.id}`}>{m.title ?? t("meetings.untitled")}</a>
                </td>
                <td class="optional">{date.format(new Date(m.recorded_at ?? m.created_at))}</td>
                <td class="optional">{formatDuration(m.duration_seconds)}</td>
                <td class="status">{t(`status.${m.status}` as MessageKey)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPageLink frame={frame} href={props.nextHref} />
    </Layout>
  );
}

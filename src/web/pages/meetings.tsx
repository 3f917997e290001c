import { MATCH_END, MATCH_START, type MeetingOrder, type MeetingView } from "../../meetings/app.ts";
import { CsrfField, Layout, NextPageLink, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import type { MessageKey } from "../i18n.ts";
import { failureReason } from "../meeting/failure.ts";

/** What a line of the list shows of a meeting (the meeting as the meetings side renders it). */
export type MeetingListEntry = Pick<MeetingView, "id" | "title" | "status" | "recorded_at" | "created_at" | "duration_seconds">;

/** Beside the rows: each failed meeting's error code, and where a search matched each meeting. */
export interface ListExtras {
  failures: ReadonlyMap<string, string>;
  snippets: ReadonlyMap<string, string>;
}

const NO_EXTRAS: ListExtras = { failures: new Map(), snippets: new Map() };

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
/** The filters folded under "More filters" (the search box stays in sight). */
const FOLDED_FILTERS = ["client", "tag", "status", "on_hold", "recorded_after", "recorded_before"] as const;
const WEB_ORDERS = ["newest", "oldest", "title"] as const;

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return "";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** "one" or "other": which plural form a count takes in the page's language. */
export function pluralKey(frame: PageFrame, base: string, count: number): MessageKey {
  return `${base}.${new Intl.PluralRules(frame.locale).select(count) === "one" ? "one" : "other"}` as MessageKey;
}

/** A search snippet: the text as text, each match between the store's marks in a <mark> (no HTML from the store). */
function Snippet({ frame, text }: { frame: PageFrame; text: string }) {
  const parts = text.split(MATCH_START);
  return (
    <p class="snippet">
      <span class="visually-hidden">{frame.t("list.snippet")}: </span>
      {parts[0]}
      {parts.slice(1).map((part) => {
        const [hit, ...rest] = part.split(MATCH_END);
        return (
          <>
            <mark>{hit}</mark>
            {rest.join("")}
          </>
        );
      })}
    </p>
  );
}

/** A meeting's status as a badge: its name in words, its colour a second cue only. */
export function StatusBadge({ frame, status }: { frame: PageFrame; status: string }) {
  return <span class={`badge ${status}`}>{frame.t(`status.${status}` as MessageKey)}</span>;
}

/** The meetings as a table: title (a failure's reason, a search's snippet under it), date, length, status; with `selectable`, a checkbox a row for the bulk form. */
export function MeetingsTable(props: { frame: PageFrame; rows: MeetingListEntry[]; extras?: ListExtras; selectable?: boolean }) {
  const { frame, rows } = props;
  const { t } = frame;
  const extras = props.extras ?? NO_EXTRAS;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  return (
    <table class="meetings-list">
      <thead>
        <tr>
          {props.selectable && (
            <th scope="col" class="pick">
              <span class="visually-hidden">{t("list.selectAll")}</span>
              <span id="select-word" hidden>
                {t("list.select")}
              </span>
              <input type="checkbox" id="select-all" aria-label={t("list.selectAll")} hidden />
            </th>
          )}
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
        {rows.map((m) => {
          const title = m.title ?? t("meetings.untitled");
          const snippet = extras.snippets.get(m.id);
          return (
            <tr>
              {props.selectable && (
                <td class="pick">
                  <input type="checkbox" name="ids" value={m.id} form="bulk" aria-labelledby={`select-word title-${m.id}`} />
                </td>
              )}
              <td>
                <a href={`/meetings/${m.id}`} id={`title-${m.id}`}>
                  {title}
                </a>
                {m.status === "failed" && <p class="failure-reason">{t(failureReason(extras.failures.get(m.id)))}</p>}
                {snippet && <Snippet frame={frame} text={snippet} />}
              </td>
              <td class="optional">{date.format(new Date(m.recorded_at ?? m.created_at))}</td>
              <td class="optional">{formatDuration(m.duration_seconds)}</td>
              <td class="status">
                <StatusBadge frame={frame} status={m.status} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A new account's list: what to do first. */
function Welcome({ frame }: { frame: PageFrame }) {
  const { t } = frame;
  return (
    <section class="welcome" aria-labelledby="welcome-title">
      <h2 id="welcome-title">{t("list.welcome")}</h2>
      <p>{t("list.welcomeBody")}</p>
      <p class="actions">
        <a class="button" href="/record">
          {t("list.startRecord")}
        </a>{" "}
        <a class="button secondary" href="/meetings/new">
          {t("list.startUpload")}
        </a>{" "}
        <a class="button secondary" href="/meetings/new#text-title">
          {t("list.startText")}
        </a>
      </p>
    </section>
  );
}

/** The bulk actions over the selected rows: add a tag, move to a client folder, delete (after a confirmation page). */
function BulkForm(props: { frame: PageFrame; clients: { id: string; name: string }[]; back: string }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <form id="bulk" class="bulk" method="post" action="/meetings/bulk">
      <CsrfField frame={frame} />
      <input type="hidden" name="back" value={props.back} />
      <fieldset>
        <legend>{t("list.bulk")}</legend>
        <span class="bulk-action">
          <label>
            {t("list.bulkTag")}
            <input name="tag" maxLength={100} />
          </label>
          <button type="submit" name="action" value="tag" class="secondary">
            {t("list.bulkTagButton")}
          </button>
        </span>
        <span class="bulk-action">
          <label>
            {t("list.bulkClient")}
            <select name="client">
              <option value="">{t("list.bulkNoClient")}</option>
              {props.clients.map((c) => (
                <option value={c.id}>{c.name}</option>
              ))}
            </select>
          </label>
          <button type="submit" name="action" value="move" class="secondary">
            {t("list.bulkMoveButton")}
          </button>
        </span>
        <span class="bulk-action">
          <button type="submit" name="action" value="delete" class="danger">
            {t("list.bulkDeleteButton")}
          </button>
        </span>
      </fieldset>
    </form>
  );
}

export function MeetingsPage(props: {
  frame: PageFrame;
  rows: MeetingListEntry[];
  filters: MeetingFilters;
  order?: MeetingOrder;
  nextHref: string | null;
  error?: string;
  notice?: PageNotice;
  extras?: ListExtras;
  /** The account's client folders (not archived), for "move to". */
  clients?: { id: string; name: string }[];
  /** No filter, no search, first page: an empty list is a new account's. */
  unfiltered?: boolean;
}) {
  const { frame, rows, filters } = props;
  const { t } = frame;
  const folded = FOLDED_FILTERS.filter((name) => filters[name]).length;
  const back = new URLSearchParams(Object.entries(filters).filter((entry): entry is [string, string] => !!entry[1]));
  if (props.order && props.order !== "newest") back.set("sort", props.order);
  const welcome = rows.length === 0 && props.unfiltered && !props.error;
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
      {welcome ? (
        <Welcome frame={frame} />
      ) : (
        <form class="filters" method="get" action="/meetings" role="search">
          <div class="search-row">
            <label>
              {t("meetings.search")}
              <input type="search" name="q" value={filters.q ?? ""} maxLength={500} />
            </label>
            <label>
              {t("list.sort")}
              <select name="sort" data-autosubmit>
                {WEB_ORDERS.map((order) => (
                  <option value={order} selected={(props.order ?? "newest") === order}>
                    {t(`list.sort.${order}` as MessageKey)}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit">{t("list.searchButton")}</button>
          </div>
          <details open={folded > 0}>
            <summary>{folded > 0 ? t("list.filtersOn", { count: folded }) : t("list.moreFilters")}</summary>
            <div class="more-filters">
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
            </div>
          </details>
        </form>
      )}
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      {!welcome && rows.length === 0 && (
        <p class="muted">
          {t("list.noMatch")} <a href="/meetings">{t("list.clearFilters")}</a>
        </p>
      )}
      {rows.length > 0 && (
        <>
          <BulkForm frame={frame} clients={props.clients ?? []} back={back.toString()} />
          <MeetingsTable frame={frame} rows={rows} extras={props.extras} selectable />
        </>
      )}
      <NextPageLink frame={frame} href={props.nextHref} />
    </Layout>
  );
}

/** The confirmation before deleting the selected meetings: their titles, one button, and the way back. */
export function ConfirmBulkDeletePage(props: { frame: PageFrame; meetings: { id: string; title: string }[]; back: string }) {
  const { frame, meetings } = props;
  const { t } = frame;
  const count = meetings.length;
  return (
    <Layout frame={frame}>
      <h1>{t("list.confirmTitle")}</h1>
      <p>{t(pluralKey(frame, "list.confirmBody", count), { count })}</p>
      <ul>
        {meetings.map((m) => (
          <li>{m.title}</li>
        ))}
      </ul>
      <form method="post" action="/meetings/bulk" class="actions">
        <CsrfField frame={frame} />
        <input type="hidden" name="action" value="delete" />
        <input type="hidden" name="confirm" value="yes" />
        <input type="hidden" name="back" value={props.back} />
        {meetings.map((m) => (
          <input type="hidden" name="ids" value={m.id} />
        ))}
        <button type="submit" class="danger">
          {t(pluralKey(frame, "list.confirmButton", count), { count })}
        </button>{" "}
        <a href={`/meetings${props.back ? `?${props.back}` : ""}`}>{t("list.cancel")}</a>
      </form>
    </Layout>
  );
}

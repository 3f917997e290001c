import type { Elysia } from "elysia";
import { renderClient } from "../clients/app.ts";
import { ApiError } from "../errors/api-error.ts";
import { listMeetingsQuery, MAX_BULK_MEETINGS, MEETING_ORDERS, type BulkOutcome, type MeetingOrder } from "../meetings/app.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import type { WebSession } from "../auth/app.ts";
import type { PageFrame, PageNotice } from "./layout.tsx";
import { ConfirmBulkDeletePage, MeetingsPage, pluralKey, type MeetingFilters } from "./pages/meetings.tsx";

/** The list's filters as the URL names them (the search box, then those folded under "More filters"). */
const FILTERS = ["q", "client", "tag", "status", "recorded_after", "recorded_before", "on_hold"] as const;
/** The sentences a bulk action's refusal comes back with (?notice=…, our own text only). */
const BULK_REFUSALS = ["bulkNone", "bulkTooMany", "bulkNoTag", "bulkBadClient"] as const;

/** The list's filters and order from a query string (the page's URL, or a bulk form's `back`): known names only, bounded. */
function listState(params: URLSearchParams): { filters: MeetingFilters; order: MeetingOrder } {
  const filters: MeetingFilters = {};
  for (const name of FILTERS) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value.slice(0, 500);
  }
  const sort = params.get("sort");
  return { filters, order: (MEETING_ORDERS as readonly string[]).includes(sort ?? "") ? (sort as MeetingOrder) : "newest" };
}

/** The query string that brings the list back as it was (filters and order). */
function listQuery(state: { filters: MeetingFilters; order: MeetingOrder }): URLSearchParams {
  const query = new URLSearchParams(Object.entries(state.filters) as [string, string][]);
  if (state.order !== "newest") query.set("sort", state.order);
  return query;
}

/**
 * The meetings list (issue 25 item 6): search, sort, filters, each failure's reason and each
 * search's snippet; the bulk actions over selected meetings (tag, move to a client, delete after a
 * confirmation page), each POST answered with a redirect to the list and its summary.
 */
export function listPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  /** The summary of a bulk action the list was sent back with: only what the account's own data confirms is shown. */
  const bulkSummary = async (params: URLSearchParams, frame: PageFrame, session: WebSession): Promise<PageNotice | undefined> => {
    const { t } = frame;
    const refusal = params.get("notice");
    if (refusal && (BULK_REFUSALS as readonly string[]).includes(refusal)) return { text: t(`list.${refusal}` as "list.bulkNone", { max: MAX_BULK_MEETINGS }), error: true };
    const done = params.get("done");
    const count = Math.min(Math.max(Number.parseInt(params.get("n") ?? "0", 10) || 0, 0), MAX_BULK_MEETINGS);
    const actor = kit.actor(session);
    const sentences: string[] = [];
    if (done === "tagged") {
      const tag = (params.get("tag") ?? "").slice(0, 100);
      // The tag is shown only when one of the account's meetings holds it: a link cannot make the page say anything else.
      const tagged = tag ? (await deps.apps.meetings.list(actor, listMeetingsQuery.parse({ tag: [tag], limit: 1 }))).data.length > 0 : false;
      if (tagged) sentences.push(t(pluralKey(frame, "list.tagged", count), { count, tag }));
    } else if (done === "moved") {
      const client = await deps.apps.clients.get(actor, params.get("to") ?? "");
      if (client) sentences.push(t(pluralKey(frame, "list.moved", count), { count, client: client.name }));
    } else if (done === "movedOut") sentences.push(t(pluralKey(frame, "list.movedOut", count), { count }));
    else if (done === "deleted") sentences.push(t(pluralKey(frame, "list.deleted", count), { count }));
    else return undefined;
    const held: string[] = [];
    for (const id of params.getAll("held").slice(0, MAX_BULK_MEETINGS)) {
      const row = await deps.apps.meetings.row(actor, id).catch(() => undefined);
      if (row) held.push(row.title);
    }
    if (held.length) sentences.push(t("list.held", { titles: held.join(", ") }));
    const skipped = Math.min(Number.parseInt(params.get("skipped") ?? "0", 10) || 0, MAX_BULK_MEETINGS);
    if (skipped > 0) sentences.push(t("list.skipped", { count: skipped }));
    return sentences.length ? { text: sentences.join(" "), error: held.length > 0 || skipped > 0 } : undefined;
  };

  app
    .get("/meetings", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("meetings.title"));
      const params = new URL(request.url).searchParams;
      const { filters, order } = listState(params);
      const day = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
      const cursor = params.get("cursor") ?? undefined;
      const limit = params.get("limit") ?? undefined;
      const parsed = listMeetingsQuery.safeParse({
        limit,
        ...filters,
        tag: filters.tag ? [filters.tag] : undefined,
        recorded_after: day(filters.recorded_after),
        recorded_before: day(filters.recorded_before),
        cursor,
      });
      const notice = kit.noticeOf(request, frame.t, ["deleted"]) ?? (await bulkSummary(params, frame, session));
      if (!parsed.success) {
        const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
        return html(<MeetingsPage frame={frame} rows={[]} filters={filters} order={order} nextHref={null} error={frame.t("meetings.badFilter", { detail })} />, 400);
      }
      const actor = kit.actor(session);
      const page = await deps.apps.meetings.browse(actor, parsed.data, order);
      let nextHref: string | null = null;
      if (page.has_more && page.next_cursor) {
        const next = listQuery({ filters, order });
        if (limit) next.set("limit", String(parsed.data.limit));
        next.set("cursor", page.next_cursor);
        nextHref = `/meetings?${next}`;
      }
      const clients = (await deps.apps.clients.list(actor, { includeArchived: false })).map(renderClient);
      return html(
        <MeetingsPage
          frame={frame}
          rows={page.data}
          filters={filters}
          order={order}
          nextHref={nextHref}
          notice={notice}
          extras={page}
          clients={clients}
          unfiltered={Object.keys(filters).length === 0 && cursor === undefined}
        />,
      );
    })
    // The confirmation before a bulk deletion: the selected meetings that are the account's, by title.
    .get("/meetings/delete", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("list.confirmTitle"));
      const params = new URL(request.url).searchParams;
      const back = listQuery(listState(new URLSearchParams(params.get("back") ?? ""))).toString();
      const meetings: { id: string; title: string }[] = [];
      for (const id of new Set(params.getAll("ids").slice(0, MAX_BULK_MEETINGS))) {
        const row = await deps.apps.meetings.row(kit.actor(session), id).catch(() => undefined);
        if (row) meetings.push({ id: row.id, title: row.title });
      }
      if (!meetings.length) return redirect(`/meetings?${new URLSearchParams({ notice: "bulkNone" })}`);
      return html(<ConfirmBulkDeletePage frame={frame} meetings={meetings} back={back} />);
    })
    .post("/meetings/bulk", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const actor = kit.actor(session);
      const back = listQuery(listState(new URLSearchParams(form.get("back") ?? "")));
      const toList = (summary: Record<string, string | number>, outcome?: BulkOutcome) => {
        const query = new URLSearchParams(back);
        for (const [name, value] of Object.entries(summary)) query.set(name, String(value));
        if (outcome) {
          query.set("n", String(outcome.changed.length));
          for (const id of outcome.held) query.append("held", id);
          if (outcome.skipped) query.set("skipped", String(outcome.skipped));
        }
        return redirect(`/meetings?${query}`);
      };
      const ids = form.getAll("ids");
      if (!ids.length) return toList({ notice: "bulkNone" });
      if (new Set(ids).size > MAX_BULK_MEETINGS) return toList({ notice: "bulkTooMany" });
      const action = form.get("action");
      if (action === "tag") {
        const tag = (form.get("tag") ?? "").trim();
        if (!tag || tag.length > 100) return toList({ notice: "bulkNoTag" });
        return toList({ done: "tagged", tag }, await deps.apps.meetings.bulkTag(actor, ids, tag));
      }
      if (action === "move") {
        const client = form.get("client") || null;
        if (client !== null && !/^cli_\d{1,15}$/.test(client)) return toList({ notice: "bulkBadClient" });
        try {
          const outcome = await deps.apps.meetings.bulkMove(actor, ids, client);
          return toList(client ? { done: "moved", to: client } : { done: "movedOut" }, outcome);
        } catch (error) {
          if (error instanceof ApiError && error.code === "validation_error") return toList({ notice: "bulkBadClient" });
          throw error;
        }
      }
      if (action === "delete") {
        if (form.get("confirm") !== "yes") {
          const confirm = new URLSearchParams(ids.map((id) => ["ids", id]));
          confirm.set("back", back.toString());
          return redirect(`/meetings/delete?${confirm}`);
        }
        return toList({ done: "deleted" }, await deps.apps.meetings.bulkDelete(actor, ids));
      }
      return toList({ notice: "bulkNone" });
    });
}

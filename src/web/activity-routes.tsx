import type { Elysia } from "elysia";
import { z } from "zod";
import { decodeCursor, encodeCursor } from "../http/pagination.ts";
import { ApiError } from "../errors/api-error.ts";
import { html } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { ACTIVITY_KINDS, ActivityPage, type ActivityFilters } from "./pages/settings-activity.tsx";

const DAY_MS = 24 * 3600 * 1000;
const PAGE_SIZE = 50;
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine((text) => !Number.isNaN(Date.parse(`${text}T00:00:00Z`)));

/** The filters a browser may send: a known kind, two dates (YYYY-MM-DD, UTC days, both included), a resource id. */
const filtersQuery = z.object({
  kind: z.union([z.literal(""), z.enum(ACTIVITY_KINDS as [string, ...string[]])]).default(""),
  from: z.union([z.literal(""), day]).default(""),
  to: z.union([z.literal(""), day]).default(""),
  resource: z
    .string()
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]*$/)
    .default(""),
  cursor: z.string().max(400).optional(),
});

/** Settings, Activity: the signed-in account's audit trail (auditApp.activity), newest first, keyset pages of 50. */
export function activityPages(app: Elysia, kit: WebKit): void {
  app.get("/settings/activity", async ({ request }) => {
    const session = kit.requireSession(request);
    const frame = kit.frameFor(request, session, (t) => t("activity.title"));
    const search = new URL(request.url).searchParams;
    const sent = Object.fromEntries([...search].filter(([name]) => ["kind", "from", "to", "resource", "cursor"].includes(name)));
    const parsed = filtersQuery.safeParse(sent);
    const shown: ActivityFilters = { kind: "", from: "", to: "", resource: "" };
    if (!parsed.success) {
      return html(<ActivityPage frame={frame} entries={[]} filters={shown} nextHref={null} notice={{ text: frame.t("activity.badFilter"), error: true }} />, 400);
    }
    const filters = parsed.data;
    Object.assign(shown, { kind: filters.kind, from: filters.from, to: filters.to, resource: filters.resource });
    let after: [number, number] | undefined;
    if (filters.cursor) {
      try {
        const [at, id] = decodeCursor(filters.cursor);
        if (typeof id !== "number") throw ApiError.validation([]);
        after = [at, id];
      } catch {
        return html(<ActivityPage frame={frame} entries={[]} filters={shown} nextHref={null} notice={{ text: frame.t("activity.badFilter"), error: true }} />, 400);
      }
    }
    const page = await kit.deps.apps.audit.activity(kit.actor(session), {
      ...(filters.kind ? { kinds: [filters.kind] } : {}),
      ...(filters.resource ? { resourceId: filters.resource } : {}),
      ...(filters.from ? { since: Date.parse(`${filters.from}T00:00:00Z`) } : {}),
      // The "to" day is included: entries before the next day's start.
      ...(filters.to ? { until: Date.parse(`${filters.to}T00:00:00Z`) + DAY_MS } : {}),
      limit: PAGE_SIZE,
      ...(after ? { after } : {}),
    });
    const next = page.next ? new URLSearchParams({ ...shown, cursor: encodeCursor(page.next) }) : null;
    return html(<ActivityPage frame={frame} entries={page.data} filters={shown} nextHref={next ? `/settings/activity?${next}` : null} />);
  });
}

import type { Elysia } from "elysia";
import { z } from "zod";
import { paginationQuery } from "../http/pagination.ts";
import { listLedger, renderUsage } from "../usage/query.ts";
import { webappUsage } from "../usage/webapp-quota.ts";
import { html } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { UsagePage } from "./pages/usage.tsx";

const pageQuery = z.object(paginationQuery(50));

/** Settings, Usage: the month's web app quotas, the API wallet and the ledger of both channels. */
export function usagePages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  app.get("/settings/usage", ({ request }) => {
    const session = kit.requireSession(request);
    const now = deps.clock.now();
    const usage = renderUsage(deps.db, deps.billing, { userId: session.user.id, plan: session.user.plan }, now);
    const search = new URL(request.url).searchParams;
    const page = listLedger(deps.db, session.user.id, pageQuery.parse({ cursor: search.get("cursor") ?? undefined }), now, "all");
    const frame = kit.frameFor(request, session, (t) => t("usage.title"));
    const nextHref = page.has_more && page.next_cursor ? `/settings/usage?cursor=${encodeURIComponent(page.next_cursor)}` : null;
    const webapp = webappUsage(deps.db, deps.billing, { userId: session.user.id, plan: session.user.plan }, now);
    return html(<UsagePage frame={frame} usage={usage} webapp={webapp} lines={page.data as never} nextHref={nextHref} />);
  });
}

import type { Elysia } from "elysia";
import { z } from "zod";
import { webActor } from "../auth/actor.ts";
import { paginationQuery } from "../http/pagination.ts";
import { renderLedgerLineWithChannel, renderUsage } from "../usage/app.ts";
import { html } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { UsagePage } from "./pages/usage.tsx";

const pageQuery = z.object(paginationQuery(50));

/** Settings, Usage: the month's web app quotas, the API wallet and the ledger of both channels. */
export function usagePages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  app.get("/settings/usage", async ({ request }) => {
    const session = kit.requireSession(request);
    const actor = webActor(session);
    const summary = await deps.apps.usage.summary(actor);
    const search = new URL(request.url).searchParams;
    const page = await deps.apps.usage.ledger(actor, pageQuery.parse({ cursor: search.get("cursor") ?? undefined }));
    const frame = kit.frameFor(request, session, (t) => t("usage.title"));
    const nextHref = page.has_more && page.next_cursor ? `/settings/usage?cursor=${encodeURIComponent(page.next_cursor)}` : null;
    const webapp = await deps.apps.usage.webappQuotas(actor);
    return html(<UsagePage frame={frame} usage={renderUsage(deps.billing, summary.plan, summary)} webapp={webapp} lines={page.data.map(renderLedgerLineWithChannel)} nextHref={nextHref} />);
  });
}

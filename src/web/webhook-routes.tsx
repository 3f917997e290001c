import type { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { paginationQuery } from "../http/pagination.ts";
import { listDeliveries, renderDelivery } from "../webhooks/deliveries.ts";
import { assertDeliverableUrl, createEndpoint, deleteEndpoint, getOwnedEndpoint, listEndpoints, patchEndpoint, renderEndpoint, rotateSecret } from "../webhooks/endpoints.ts";
import { queuePing } from "../webhooks/ping.ts";
import { createEndpointBody } from "../webhooks/schema.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { DeliveriesPage, WebhooksPage } from "./pages/webhooks.tsx";
import { z } from "zod";
import type { WebSession } from "../auth/web-sessions.ts";

const HOOK_NOTICES = ["tested", "deleted", "enabled"];
const pageQuery = z.object(paginationQuery(50));

/** Settings, Webhooks: endpoints, their delivery log, test, secret rotation. */
export function webhookPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  const webhooksPage = (
    request: Request,
    session: WebSession,
    extra: { status?: number; secret?: { endpointUrl: string; value: string }; error?: string; headers?: Record<string, string> } = {},
  ) => {
    const frame = kit.frameFor(request, session, (t) => t("hooks.title"));
    const notice = extra.error ? { text: extra.error, error: true } : kit.noticeOf(request, frame.t, HOOK_NOTICES, "notice.hook.");
    const endpoints = listEndpoints(deps.db, session.user.id).map(renderEndpoint);
    return html(<WebhooksPage frame={frame} endpoints={endpoints} secret={extra.secret} notice={notice} />, extra.status ?? 200, [], {
      "cache-control": "no-store",
      ...extra.headers,
    });
  };

  app
    .get("/settings/webhooks", ({ request }) => webhooksPage(request, kit.requireSession(request)))
    .post("/settings/webhooks", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const events = form.getAll("event");
      const parsed = createEndpointBody.safeParse({
        url: (form.get("url") ?? "").trim(),
        events: events.includes("*") ? ["*"] : events,
        description: form.get("description")?.trim() || undefined,
      });
      if (!parsed.success) {
        return webhooksPage(request, session, { status: 400, error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join(" ") });
      }
      try {
        await assertDeliverableUrl(parsed.data.url, deps);
      } catch (error) {
        if (error instanceof ApiError) return webhooksPage(request, session, { status: error.status, error: [error.message, ...(error.errors ?? []).map((e) => e.message)].join(" ") });
        throw error;
      }
      const row = deps.db.transaction((tx) => createEndpoint(tx, deps.clock, session.user.id, parsed.data));
      return webhooksPage(request, session, { status: 201, secret: { endpointUrl: row.url, value: row.secret } });
    })
    .get("/settings/webhooks/:endpointId", ({ request, params }) => {
      const session = kit.requireSession(request);
      const endpoint = getOwnedEndpoint(deps.db, session.user.id, params.endpointId);
      const search = new URL(request.url).searchParams;
      const query = pageQuery.parse({ cursor: search.get("cursor") ?? undefined });
      const page = listDeliveries(deps.db, endpoint.id, query);
      const frame = kit.frameFor(request, session, (t) => t("hooks.deliveriesOf", { url: endpoint.url }));
      const nextHref = page.has_more && page.next_cursor ? `/settings/webhooks/${endpoint.id}?cursor=${encodeURIComponent(page.next_cursor)}` : null;
      return html(<DeliveriesPage frame={frame} endpoint={renderEndpoint(endpoint)} deliveries={page.data as ReturnType<typeof renderDelivery>[]} nextHref={nextHref} />);
    })
    .post("/settings/webhooks/:endpointId/test", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      let delivery;
      try {
        delivery = queuePing(deps.db, deps.clock, deps.pings, session.user.id, params.endpointId);
      } catch (error) {
        // The endpoint had its test pings for the window (the API's .../test counts too): the list,
        // with when to try again, and the API's Retry-After.
        if (!(error instanceof ApiError) || error.code !== "rate_limited") throw error;
        const seconds = error.headers?.["Retry-After"] ?? "60";
        const t = kit.frameFor(request, session, () => "").t;
        return webhooksPage(request, session, { status: 429, error: t("hooks.pingsThrottled", { seconds }), headers: { "retry-after": seconds } });
      }
      deps.webhooks.sendNow(delivery.id);
      return redirect("/settings/webhooks?notice=tested");
    })
    .post("/settings/webhooks/:endpointId/rotate", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const row = rotateSecret(deps.db, deps.clock, session.user.id, params.endpointId);
      return webhooksPage(request, session, { secret: { endpointUrl: row.url, value: row.secret } });
    })
    .post("/settings/webhooks/:endpointId/enable", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      patchEndpoint(deps.db, deps.clock, session.user.id, params.endpointId, { enabled: true });
      deps.webhooks.wake();
      return redirect("/settings/webhooks?notice=enabled");
    })
    .post("/settings/webhooks/:endpointId/delete", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      deleteEndpoint(deps.db, deps.wal, session.user.id, params.endpointId);
      return redirect("/settings/webhooks?notice=deleted");
    });
}

import type { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { paginationQuery } from "../http/pagination.ts";
import { webActor } from "../auth/actor.ts";
import { createEndpointBody, renderDelivery, renderEndpoint } from "../webhooks/app.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { DeliveriesPage, WebhooksPage } from "./pages/webhooks.tsx";
import { z } from "zod";
import type { WebSession } from "../auth/app.ts";

const HOOK_NOTICES = ["tested", "deleted", "enabled"];

function isTooManyEndpoints(error: ApiError): boolean {
  return (error.errors ?? []).some((e) => e.code === "too_many_endpoints");
}
const pageQuery = z.object(paginationQuery(50));

/** Settings, Webhooks: endpoints, their delivery log, test, secret rotation. */
export function webhookPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  const webhooksPage = async (
    request: Request,
    session: WebSession,
    extra: { status?: number; secret?: { endpointUrl: string; value: string }; error?: string; headers?: Record<string, string> } = {},
  ) => {
    const frame = kit.frameFor(request, session, (t) => t("hooks.title"));
    const notice = extra.error ? { text: extra.error, error: true } : kit.noticeOf(request, frame.t, HOOK_NOTICES, "notice.hook.");
    const endpoints = (await deps.apps.webhooks.list(webActor(session))).map(renderEndpoint);
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
      let created;
      try {
        created = await deps.apps.webhooks.createEndpoint(webActor(session), parsed.data);
      } catch (error) {
        // A URL the address guard refuses is shown on the page; any other refusal (too many
        // endpoints) is the web app's refusal page, as before.
        if (error instanceof ApiError && !isTooManyEndpoints(error)) {
          return webhooksPage(request, session, { status: error.status, error: [error.message, ...(error.errors ?? []).map((e) => e.message)].join(" ") });
        }
        throw error;
      }
      return webhooksPage(request, session, { status: 201, secret: { endpointUrl: created.body.url, value: created.body.secret } });
    })
    .get("/settings/webhooks/:endpointId", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const search = new URL(request.url).searchParams;
      const query = pageQuery.parse({ cursor: search.get("cursor") ?? undefined });
      const { endpoint, page } = await deps.apps.webhooks.deliveries(webActor(session), params.endpointId, query);
      const frame = kit.frameFor(request, session, (t) => t("hooks.deliveriesOf", { url: endpoint.url }));
      const nextHref = page.has_more && page.next_cursor ? `/settings/webhooks/${endpoint.id}?cursor=${encodeURIComponent(page.next_cursor)}` : null;
      return html(<DeliveriesPage frame={frame} endpoint={renderEndpoint(endpoint)} deliveries={page.data.map(renderDelivery)} nextHref={nextHref} />);
    })
    .post("/settings/webhooks/:endpointId/test", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      try {
        await deps.apps.webhooks.ping(webActor(session), params.endpointId);
      } catch (error) {
        // The endpoint had its test pings for the window (the API's .../test counts too): the list,
        // with when to try again, and the API's Retry-After.
        if (!(error instanceof ApiError) || error.code !== "rate_limited") throw error;
        const seconds = error.headers?.["Retry-After"] ?? "60";
        const t = kit.frameFor(request, session, () => "").t;
        return webhooksPage(request, session, { status: 429, error: t("hooks.pingsThrottled", { seconds }), headers: { "retry-after": seconds } });
      }
      return redirect("/settings/webhooks?notice=tested");
    })
    .post("/settings/webhooks/:endpointId/rotate", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const row = await deps.apps.webhooks.rotateSecret(webActor(session), params.endpointId);
      return webhooksPage(request, session, { secret: { endpointUrl: row.url, value: row.secret } });
    })
    .post("/settings/webhooks/:endpointId/enable", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      await deps.apps.webhooks.update(webActor(session), params.endpointId, { enabled: true });
      return redirect("/settings/webhooks?notice=enabled");
    })
    .post("/settings/webhooks/:endpointId/delete", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      await deps.apps.webhooks.delete(webActor(session), params.endpointId);
      return redirect("/settings/webhooks?notice=deleted");
    });
}

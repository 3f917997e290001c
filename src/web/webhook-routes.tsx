import type { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { paginationQuery } from "../http/pagination.ts";
import { webActor } from "../auth/actor.ts";
import { createEndpointBody, renderDelivery, renderEndpoint } from "../webhooks/app.ts";
import { fieldErrors } from "../http/validation.ts";
import { fieldsOf } from "./error-pages.tsx";
import { redirectWithFormError, type FormRefusal } from "./form-state.ts";
import { html, redirect } from "./http.ts";
import { redirectShowingOnce, takeShownOnce } from "./shown-once.ts";
import type { WebKit } from "./kit.ts";
import { DeliveriesPage, WebhooksPage } from "./pages/webhooks.tsx";
import { z } from "zod";
import type { WebSession } from "../auth/app.ts";

const HOOK_NOTICES = ["tested", "deleted", "enabled"];

const pageQuery = z.object(paginationQuery(50));

/** Settings, Webhooks: endpoints, their delivery log, test, secret rotation. */
export function webhookPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  const webhooksPage = async (request: Request, session: WebSession) => {
    const frame = kit.frameFor(request, session, (t) => t("hooks.title"));
    // A signing secret just made (a new endpoint, a rotation), shown this once (shown-once.ts).
    const shown = takeShownOnce(request);
    const secret = shown.value?.endpointUrl !== undefined && shown.value.value !== undefined ? { endpointUrl: shown.value.endpointUrl, value: shown.value.value } : undefined;
    const notice = shown.gone ? { text: frame.t("err.shownOnceGone"), error: true } : kit.noticeOf(request, frame.t, HOOK_NOTICES, "notice.hook.");
    const endpoints = (await deps.apps.webhooks.list(webActor(session))).map(renderEndpoint);
    return html(<WebhooksPage frame={frame} endpoints={endpoints} secret={secret} notice={notice} />, 200, [], { "cache-control": "no-store" });
  };
  /** Back to the list with a refusal (post/redirect/get). */
  const refused = (request: Request, state: FormRefusal) => redirectWithFormError(request, "/settings/webhooks", state);
  /** A confirmed action (rotate, delete) without its confirmation: back to the list, saying so. */
  const unconfirmed = (request: Request, form: URLSearchParams) => (form.get("confirm") === "yes" ? null : refused(request, { fields: {}, form: "err.confirm.missing" }));

  app
    .get("/settings/webhooks", ({ request }) => webhooksPage(request, kit.requireSession(request)))
    .post("/settings/webhooks", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const events = form.getAll("event");
      const url = (form.get("url") ?? "").trim();
      const description = form.get("description")?.trim() || undefined;
      const values = { url, description, events: events.join(" ") };
      // A refused URL (not https, not public, unresolvable), no event, too many endpoints: the
      // form comes back with what was typed and a plain sentence at the field.
      const own = { url: "err.field.webhookUrl", events: "err.field.webhookEvents", "url:too_many_endpoints": "err.field.tooManyEndpoints" } as const;
      const parsed = createEndpointBody.safeParse({ url, events: events.includes("*") ? ["*"] : events, description });
      if (!parsed.success) return refused(request, { fields: fieldsOf(ApiError.validation(fieldErrors(parsed.error)), {}, own), values });
      let created;
      try {
        created = await deps.apps.webhooks.createEndpoint(webActor(session), parsed.data);
      } catch (error) {
        if (error instanceof ApiError && error.code === "validation_error") return refused(request, { fields: fieldsOf(error, {}, own), values });
        throw error;
      }
      return redirectShowingOnce(request, "/settings/webhooks", { endpointUrl: created.body.url, value: created.body.secret });
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
        // with when to try again (and the API's Retry-After on the redirect, for scripts).
        if (!(error instanceof ApiError) || error.code !== "rate_limited") throw error;
        const seconds = error.headers?.["Retry-After"] ?? "60";
        const back = refused(request, { fields: {}, form: "hooks.pingsThrottled", params: { seconds } });
        back.headers.set("retry-after", seconds);
        return back;
      }
      return redirect("/settings/webhooks?notice=tested");
    })
    .post("/settings/webhooks/:endpointId/rotate", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const refusal = unconfirmed(request, form);
      if (refusal) return refusal;
      const row = await deps.apps.webhooks.rotateSecret(webActor(session), params.endpointId);
      return redirectShowingOnce(request, "/settings/webhooks", { endpointUrl: row.url, value: row.secret });
    })
    .post("/settings/webhooks/:endpointId/enable", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      await deps.apps.webhooks.update(webActor(session), params.endpointId, { enabled: true });
      return redirect("/settings/webhooks?notice=enabled");
    })
    .post("/settings/webhooks/:endpointId/delete", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const refusal = unconfirmed(request, form);
      if (refusal) return refusal;
      await deps.apps.webhooks.delete(webActor(session), params.endpointId);
      return redirect("/settings/webhooks?notice=deleted");
    });
}

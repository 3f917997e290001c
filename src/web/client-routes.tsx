import type { Elysia } from "elysia";
import { webActor } from "../auth/actor.ts";
import { renderClient, type NamingOutcome } from "../clients/app.ts";
import { listMeetingsQuery } from "../meetings/app.ts";
import { redirectWithFormError, takeFormState } from "./form-state.ts";
import { html, redirect } from "./http.ts";
import { PageRefusal, type WebKit } from "./kit.ts";
import { ClientPage, ClientsPage } from "./pages/clients.tsx";

/** How many of a client's meetings its page lists (the meetings list, filtered by the client, has them all). */
const CLIENT_PAGE_MEETINGS = 50;

/**
 * Client folders: the list (archived ones too), a new folder, and each folder's page (its name, its
 * meetings, rename, archive, legal hold), the web app's side of /v1/clients.
 */
export function clientPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  const notices = ["archived", "unarchived", "clientHeld", "clientReleased"];

  const change = async (request: Request, id: string, flags: { isArchived?: boolean; legalHold?: boolean }, notice: string) => {
    const { session, form } = await kit.readForm(request);
    // Another account's client, or no client, is the 404 page.
    const client = await deps.apps.clients.update(webActor(session), id, flags);
    if (!client) throw new PageRefusal(404, "");
    // From the folder's own page, back to it; from the list, back to the list.
    return redirect(form.get("from") === "page" ? `/clients/${renderClient(client).id}?notice=${notice}` : `/clients?notice=${notice}`);
  };

  /** A new name's outcome: on to `done`, or back to the form at `page` with the name kept and the reason at the field. */
  const named = (request: Request, outcome: NamingOutcome | { kind: "invalid_name" }, typed: string, page: string, done: (id: string) => string) => {
    if (outcome.kind === "not_found") throw new PageRefusal(404, "");
    if (outcome.kind === "named") return redirect(done(renderClient(outcome.client).id));
    return redirectWithFormError(request, page, { fields: { name: outcome.kind === "name_taken" ? "client.nameTaken" : "client.nameInvalid" }, values: { name: typed } });
  };

  app
    .get("/clients", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("clients.title"));
      const clients = (await deps.apps.clients.list(webActor(session), { includeArchived: true })).map(renderClient);
      const notice = kit.noticeOf(request, frame.t, notices) ?? kit.noticeOf(request, frame.t, ["created"], "client.");
      return html(<ClientsPage frame={frame} clients={clients} notice={notice} form={takeFormState(request)} />);
    })
    .post("/clients", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const typed = form.get("name") ?? "";
      return named(request, await deps.apps.clients.create(webActor(session), typed), typed, "/clients", (id) => `/clients/${id}?notice=created`);
    })
    .get("/clients/:id", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const actor = webActor(session);
      const row = await deps.apps.clients.get(actor, params.id);
      if (!row) throw new PageRefusal(404, "");
      const client = renderClient(row);
      const frame = kit.frameFor(request, session, () => client.name);
      const meetings = await deps.apps.meetings.browse(actor, listMeetingsQuery.parse({ client: client.id, limit: CLIENT_PAGE_MEETINGS }), "newest");
      const notice = kit.noticeOf(request, frame.t, notices) ?? kit.noticeOf(request, frame.t, ["created", "renamed"], "client.");
      return html(<ClientPage frame={frame} client={client} meetings={meetings} notice={notice} form={takeFormState(request)} />);
    })
    .post("/clients/:id/rename", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const typed = form.get("name") ?? "";
      const page = `/clients/${encodeURIComponent(params.id)}`;
      return named(request, await deps.apps.clients.rename(webActor(session), params.id, typed), typed, page, (id) => `/clients/${id}?notice=renamed`);
    })
    .post("/clients/:id/archive", ({ request, params }) => change(request, params.id, { isArchived: true }, "archived"))
    .post("/clients/:id/unarchive", ({ request, params }) => change(request, params.id, { isArchived: false }, "unarchived"))
    .post("/clients/:id/hold", ({ request, params }) => change(request, params.id, { legalHold: true }, "clientHeld"))
    .post("/clients/:id/release", ({ request, params }) => change(request, params.id, { legalHold: false }, "clientReleased"));
}

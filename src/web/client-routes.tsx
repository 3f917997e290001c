import type { Elysia } from "elysia";
import { webActor } from "../auth/actor.ts";
import { renderClient } from "../clients/app.ts";
import { html, redirect } from "./http.ts";
import { PageRefusal, type WebKit } from "./kit.ts";
import { ClientsPage } from "./pages/clients.tsx";

/** Client folders: the list (archived ones too) and archiving, the web app's side of PATCH /v1/clients/{id}. */
export function clientPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  const change = async (request: Request, id: string, flags: { isArchived?: boolean; legalHold?: boolean }, notice: string) => {
    const { session } = await kit.readForm(request);
    // Another account's client, or no client, is the 404 page.
    if (!(await deps.apps.clients.update(webActor(session), id, flags))) throw new PageRefusal(404, "");
    return redirect(`/clients?notice=${notice}`);
  };

  app
    .get("/clients", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("clients.title"));
      const clients = (await deps.apps.clients.list(webActor(session), { includeArchived: true })).map(renderClient);
      return html(<ClientsPage frame={frame} clients={clients} notice={kit.noticeOf(request, frame.t, ["archived", "unarchived", "clientHeld", "clientReleased"])} />);
    })
    .post("/clients/:id/archive", ({ request, params }) => change(request, params.id, { isArchived: true }, "archived"))
    .post("/clients/:id/unarchive", ({ request, params }) => change(request, params.id, { isArchived: false }, "unarchived"))
    .post("/clients/:id/hold", ({ request, params }) => change(request, params.id, { legalHold: true }, "clientHeld"))
    .post("/clients/:id/release", ({ request, params }) => change(request, params.id, { legalHold: false }, "clientReleased"));
}

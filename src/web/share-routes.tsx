import type { Elysia } from "elysia";
import { isUuid } from "../lib/ids.ts";
import { SHARE_PERMISSIONS, ShareRefused, type SharePermission } from "../sharing/app.ts";
import { redirectWithFormError } from "./form-state.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { PageRefusal } from "./kit.ts";
import { SharedPage } from "./pages/shared.tsx";

/**
 * Sharing a meeting with colleagues (issue 25 item 7): the owner's share and revoke forms (on the
 * meeting page, post/redirect/get) and "Shared with me". What a colleague may do on a shared
 * meeting's page is decided by meeting/page.tsx's meetingFor.
 */
export function sharePages(app: Elysia, kit: WebKit): void {
  const { sharing } = kit.deps.apps;
  const meetingId = (id: string) => {
    if (!isUuid(id)) throw new PageRefusal(404, "");
    return id.toLowerCase();
  };
  app
    .get("/shared", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("shared.title"));
      return html(<SharedPage frame={frame} rows={await sharing.sharedWithMe(kit.actor(session))} />);
    })
    .post("/meetings/:id/shares", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const id = meetingId(params.id);
      const email = (form.get("email") ?? "").trim().slice(0, 320);
      const asked = form.get("permission") ?? "view";
      const permission: SharePermission = (SHARE_PERMISSIONS as readonly string[]).includes(asked) ? (asked as SharePermission) : "view";
      const back = `/meetings/${id}`;
      const refused = (key: "share.emailMissing" | "share.unknown" | "share.self") =>
        redirectWithFormError(request, `${back}#share`, { fields: { email: key }, values: { email, permission } });
      if (!email) return refused("share.emailMissing");
      try {
        await sharing.share(kit.actor(session), id, email, permission);
      } catch (error) {
        if (error instanceof ShareRefused) return refused(error.reason === "self" ? "share.self" : "share.unknown");
        throw error;
      }
      return redirect(`${back}?notice=shared#share`);
    })
    .post("/meetings/:id/shares/:shareId/revoke", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const id = meetingId(params.id);
      await sharing.revoke(kit.actor(session), id, params.shareId);
      return redirect(`/meetings/${id}?notice=unshared#share`);
    });
}

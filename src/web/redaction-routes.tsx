import type { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import type { PageNotice } from "./layout.tsx";
import { RedactionSettingsPage } from "./pages/settings-redaction.tsx";

/** Settings, Redaction: the account's redaction default and case/file number pattern (meetingsApp's). */
export function redactionSettingsPages(app: Elysia, kit: WebKit): void {
  const { meetings } = kit.deps.apps;

  const page = async (request: Request, session: Parameters<WebKit["actor"]>[0], status = 200, notice?: PageNotice) => {
    const frame = kit.frameFor(request, session, (t) => t("redaction.title"));
    const defaults = await meetings.redactionDefaults(kit.actor(session));
    return html(<RedactionSettingsPage frame={frame} defaults={defaults} notice={notice ?? kit.noticeOf(request, frame.t, ["redaction"])} />, status);
  };

  app
    .get("/settings/redaction", ({ request }) => page(request, kit.requireSession(request)))
    .post("/settings/redaction", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const pattern = (form.get("case_number_pattern") ?? "").trim();
      try {
        // The same validation as PUT /v1/redaction: an unchecked box is false, an empty pattern none.
        const entities = form.getAll("entities");
        await meetings.setRedactionDefaults(kit.actor(session), {
          enabled: form.get("enabled") === "true",
          entities: entities.length ? entities : undefined,
          audio: form.get("audio") === "true",
          case_number_pattern: pattern || null,
        });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "validation_error") throw error;
        const t = kit.frameFor(request, session, () => "").t;
        const detail = (error.errors ?? []).map((e) => e.message).join(" ");
        return page(request, session, 400, { text: `${t("redaction.refused")} ${detail}`, error: true });
      }
      return redirect("/settings/redaction?notice=redaction");
    });
}

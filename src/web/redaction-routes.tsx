import type { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { fieldsOf } from "./error-pages.tsx";
import { redirectWithFormError } from "./form-state.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { RedactionSettingsPage } from "./pages/settings-redaction.tsx";

/** Settings, Redaction: the account's redaction default and case/file number pattern (meetingsApp's). */
export function redactionSettingsPages(app: Elysia, kit: WebKit): void {
  const { meetings } = kit.deps.apps;

  const page = async (request: Request, session: Parameters<WebKit["actor"]>[0]) => {
    const frame = kit.frameFor(request, session, (t) => t("redaction.title"));
    const defaults = await meetings.redactionDefaults(kit.actor(session));
    return html(<RedactionSettingsPage frame={frame} defaults={defaults} notice={kit.noticeOf(request, frame.t, ["redaction"])} />);
  };

  app
    .get("/settings/redaction", ({ request }) => page(request, kit.requireSession(request)))
    .post("/settings/redaction", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const pattern = (form.get("case_number_pattern") ?? "").trim();
      const entities = form.getAll("entities");
      try {
        // The same validation as PUT /v1/redaction: an unchecked box is false, an empty pattern none.
        await meetings.setRedactionDefaults(kit.actor(session), {
          enabled: form.get("enabled") === "true",
          entities: entities.length ? entities : undefined,
          audio: form.get("audio") === "true",
          case_number_pattern: pattern || null,
        });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "validation_error") throw error;
        // Back to the form as it was filled in, the message at the field refused.
        return redirectWithFormError(request, "/settings/redaction", {
          fields: fieldsOf(error, {}, { "case_number_pattern:invalid_pattern": "err.field.pattern" }),
          form: "redaction.refused",
          values: { enabled: form.get("enabled") ?? "false", audio: form.get("audio") ?? "false", entities: entities.join(" "), case_number_pattern: pattern },
        });
      }
      return redirect("/settings/redaction?notice=redaction");
    });
}

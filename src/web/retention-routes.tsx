import type { Elysia } from "elysia";
import { webActor } from "../auth/actor.ts";
import { ApiError } from "../errors/api-error.ts";
import { parseOrThrow } from "../http/validation.ts";
import { MAX_RETENTION_DAYS, retentionPolicyBody } from "../retention/app.ts";
import { redirectWithFormError } from "./form-state.ts";
import type { MessageKey } from "./i18n.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { RetentionSettingsPage } from "./pages/settings-retention.tsx";

/** A form's days field: empty is off (null); anything else is handed to the policy's schema as typed, so it refuses it with the API's own rules. */
function daysField(value: string | null): number | null | string {
  const text = (value ?? "").trim();
  if (text === "") return null;
  return /^\d{1,6}$/.test(text) ? Number(text) : text;
}

/** Settings → Retention: the account's retention policy, through the same use case as PUT /v1/retention. */
export function retentionPages(app: Elysia, kit: WebKit): void {
  const { retention } = kit.deps.apps;

  app
    .get("/settings/retention", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("retention.title"));
      const policy = await retention.get(webActor(session));
      return html(<RetentionSettingsPage frame={frame} policy={policy} notice={kit.noticeOf(request, frame.t, ["retentionSaved"])} />);
    })
    .post("/settings/retention", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const actor = webActor(session);
      try {
        const input = parseOrThrow(retentionPolicyBody, {
          delete_after_days: daysField(form.get("delete_after_days")),
          recording_delete_after_days: daysField(form.get("recording_delete_after_days")),
        });
        await retention.set(actor, input);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error;
        // Back to the form as typed, "a whole number of days from 1 to …" at the field refused, or
        // (both in range) that the recording must go before the meeting.
        const fields: Record<string, MessageKey> = {};
        for (const e of error.errors ?? []) fields[e.field] = e.code === "too_large" && Number(form.get(e.field)) <= MAX_RETENTION_DAYS ? "err.field.recordingBelow" : "err.field.days";
        const values = { delete_after_days: form.get("delete_after_days"), recording_delete_after_days: form.get("recording_delete_after_days") };
        return redirectWithFormError(request, "/settings/retention", { fields, params: { max: MAX_RETENTION_DAYS }, values });
      }
      return redirect("/settings/retention?notice=retentionSaved");
    });
}

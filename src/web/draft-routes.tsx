import type { Elysia } from "elysia";
import { readBounded } from "../http/body.ts";
import { MAX_PART_BYTES, MIN_PART_BYTES, redactPiiFromField, vocabularyList } from "../meetings/app.ts";
import { html, json, redirect, respond } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { RecordPage } from "./pages/record.tsx";

/** The part size the browser sends: half the server's bound, so a part never meets it. */
export const PART_BYTES = MAX_PART_BYTES / 2;

/**
 * Draft meetings, for the browser's recorder and its resumable uploader (web/islands): create a
 * draft, send its recording in numbered parts (again after a cut: a part sent twice is stored
 * once), ask which parts arrived, then finish it, which queues its processing. Every call is the
 * signed-in user's own, with the session's CSRF token (a header from the scripts, a field from a
 * form).
 */
export function draftRoutes(app: Elysia, kit: WebKit): void {
  const { meetings } = kit.deps.apps;

  app
    .get("/record", async ({ request }) => {
      const session = kit.requireSession(request);
      const redaction = await meetings.redactionDefaults(kit.actor(session));
      return html(<RecordPage frame={kit.frameFor(request, session, (t) => t("record.title"))} redaction={redaction} />);
    })
    .post("/meetings/drafts", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const kind = form.get("kind") === "recording" ? "live_recording" : "upload";
      const fileName = kind === "upload" ? (form.get("file_name") ?? "").slice(0, 255) || null : null;
      // Before anyone records an hour, the use case checks the month's web app audio has minutes left.
      const id = await meetings.createDraft(
        kit.actor(session),
        {
          title: form.get("title")?.trim() || undefined,
          language: form.get("language") || undefined,
          tags: (form.get("tags") ?? "").split(",").map((tag) => tag.trim()).filter(Boolean),
          vocabulary: vocabularyList(form.get("vocabulary") ?? ""),
          redact_pii: redactPiiFromField(form.get("redact_pii")),
        },
        { source: kind, fileName },
      );
      return json({ id, part_bytes: PART_BYTES, min_part_bytes: MIN_PART_BYTES }, 201);
    })
    .get("/meetings/:id/parts", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { status, received, bytes } = await meetings.draftParts(kit.actor(session), params.id);
      return json({ status, received, bytes });
    })
    .put("/meetings/:id/parts/:index", async ({ request, params }) => {
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, undefined);
      // One part in memory at a time per processing slot of the plan, as for uploads.
      const index = /^\d{1,6}$/.test(params.index) ? Number(params.index) : -1;
      await meetings.storeDraftPart(kit.actor(session), params.id, index, () => readBounded(request, MAX_PART_BYTES));
      return respond(null, 204, {});
    })
    .post("/meetings/:id/finish", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const expected = form.get("expected_bytes");
      await meetings.finishDraft(kit.actor(session), params.id, expected && /^\d{1,13}$/.test(expected) ? Number(expected) : undefined);
      return redirect(`/meetings/${params.id}`);
    });
}

import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { readBounded } from "../../http/body.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { createMeetingUpload, MAX_TEXT_TRANSCRIPT_BYTES, redactPiiFromField, vocabularyList } from "../../meetings/app.ts";
import { fieldsOf } from "../error-pages.tsx";
import { redirectWithFormError } from "../form-state.ts";
import { redirect } from "../http.ts";
import type { WebKit } from "../kit.ts";

/** A meeting from a transcript pasted, or uploaded as a file from Teams, Zoom, Meet or elsewhere (no recording): its report is written from it. */
export function textMeetingRoutes(app: Elysia, kit: WebKit): void {
  app.post("/meetings/text", async ({ request }) => {
    const session = kit.requireSession(request);
    // A pasted or uploaded transcript: up to 1 MB of text, with the form's other fields.
    const bytes = await readBounded(request, MAX_TEXT_TRANSCRIPT_BYTES + 64 * 1024);
    const form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData().catch(() => new FormData());
    kit.assertCsrf(request, session, String(form.get("_csrf") ?? ""));
    const file = form.get("text_file");
    const field = (name: string) => (typeof form.get(name) === "string" && String(form.get(name)).trim()) || undefined;
    // A file (text, WebVTT, SubRip, SubViewer: read by its content, its name a hint), else the pasted text.
    const upload = file instanceof File && file.size > 0 ? file : null;
    const pasted = String(form.get("text") ?? "");
    try {
      const fields = parseOrThrow(createMeetingUpload, { title: field("title"), language: field("language"), vocabulary: vocabularyList(field("vocabulary") ?? ""), redact_pii: redactPiiFromField(field("redact_pii")) });
      const text = upload ? new Uint8Array(await upload.arrayBuffer()) : pasted;
      const source = upload ? { fileName: upload.name, field: "text_file" } : { fileName: null, field: "text" };
      const id = await kit.deps.apps.meetings.createFromText(kit.actor(session), fields, text, source);
      return redirect(`/meetings/${id}`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "validation_error") throw error;
      // Back to the form with what was typed (the text too, when it fits) and a word at the field.
      const unreadable = error.errors?.find((e) => e.code === "invalid_format" && (e.field === "text" || e.field === "text_file"));
      return redirectWithFormError(request, "/meetings/new", {
        fields: fieldsOf(error, {}, { "text:too_short": pasted.trim() === "" ? "err.field.textEmpty" : "err.field.transcriptUnreadable", "text_file:too_short": "err.field.transcriptUnreadable", "text:invalid_format": "err.field.transcriptUnreadable", "text_file:invalid_format": "err.field.transcriptUnreadable" }),
        values: { for: "text", title: field("title"), language: field("language"), vocabulary: field("vocabulary"), text: pasted },
        // Where a transcript could not be read, the line that failed and what was expected there.
        ...(unreadable ? { formText: unreadable.message } : {}),
      });
    }
  });
}

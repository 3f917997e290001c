import type { Elysia } from "elysia";
import { UploadRequired } from "../../meetings/app.ts";
import { html, redirect } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { redirectWithFormError } from "../form-state.ts";
import { UploadPage } from "../pages/upload.tsx";

/** The upload form and its multipart POST: a recording to transcribe, streamed to disk. */
export function uploadRoutes(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  app
    .get("/meetings/new", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("upload.title"));
      const redaction = await deps.apps.meetings.redactionDefaults(kit.actor(session));
      return html(<UploadPage frame={frame} maxBytes={deps.maxUploadBytes} redaction={redaction} />);
    })
    .post("/meetings/new", async ({ request }) => {
      // A multipart body: the CSRF token comes in the query string (not logged) or a header.
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, new URL(request.url).searchParams.get("_csrf") ?? undefined);
      // The same use case as the API's POST /v1/meetings (its admission, disk check and transaction);
      // the web form sends no Idempotency-Key, and only files.
      try {
        const { meetingId } = await deps.apps.meetings.receiveUpload(kit.actor(session), request, { idempotencyKey: null });
        return redirect(`/meetings/${meetingId}`);
      } catch (error) {
        // No file: back to the form, the message at the file field; any other refusal (too large,
        // not audio, the month's quota) is the error layer's, back to this form with its sentence.
        if (error instanceof UploadRequired) return redirectWithFormError(request, "/meetings/new", { fields: { file: "upload.fileRequired" } });
        throw error;
      }
    });
}

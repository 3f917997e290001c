import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { UploadRequired } from "../../meetings/app.ts";
import { redirectWithFormError, takeFormState } from "../form-state.ts";
import { html, redirect } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { UploadPage } from "../pages/upload.tsx";

/** The upload form and its multipart POST: a recording to transcribe, streamed to disk. */
export function uploadRoutes(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  app
    .get("/meetings/new", async ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("upload.title"));
      const redaction = await deps.apps.meetings.redactionDefaults(kit.actor(session));
      const state = takeFormState(request);
      return html(<UploadPage frame={frame} maxBytes={deps.maxUploadBytes} redaction={redaction} fileError={state?.fields.file && frame.t(state.fields.file)} />);
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
        // No file: back to the form, the message at the file field.
        if (error instanceof UploadRequired) return redirectWithFormError(request, "/meetings/new", { fields: { file: "upload.fileRequired" } });
        // Not a recording (a PDF, say; its first bytes tell): back to the form, the reason at the file
        // field. The other fields follow the file in the body, unread: they cannot be kept. Any other
        // refusal (too large, the month's quota) is the error layer's, back to this form with its sentence.
        if (error instanceof ApiError && error.code === "unsupported_media") {
          const refused = redirectWithFormError(request, "/meetings/new", { fields: { file: "upload.notRecording" } });
          for (const [name, value] of Object.entries(error.headers ?? {})) refused.headers.set(name, value);
          return refused;
        }
        throw error;
      }
    });
}

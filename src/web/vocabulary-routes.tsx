import type { Elysia } from "elysia";
import type { WebSession } from "../auth/app.ts";
import { ApiError } from "../errors/api-error.ts";
import { createTermBody, patchTermBody, renderTerm } from "../vocabulary/app.ts";
import { html, redirect } from "./http.ts";
import type { WebKit } from "./kit.ts";
import type { PageNotice } from "./layout.tsx";
import { VocabularyPage } from "./pages/settings-vocabulary.tsx";

const VOCAB_NOTICES = ["added", "saved", "deleted"];

/** The form's term and its variants, one a line (empty lines left out). */
function termForm(form: { get(name: string): string | null }) {
  return {
    term: form.get("term") ?? "",
    variants: (form.get("variants") ?? "").split(/\r\n|\r|\n/).filter((line) => line.trim() !== ""),
  };
}

/** What a refusal says on the page: the fields' messages, or the use case's sentence. */
function refusalText(error: { issues: { path: PropertyKey[]; message: string }[] } | ApiError): string {
  if (error instanceof ApiError) return [error.message, ...(error.errors ?? []).map((e) => e.message)].join(" ");
  return error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join(" ");
}

/** Settings, Vocabulary: add, change and delete the account glossary's terms (post/redirect/get). */
export function vocabularyPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  const vocabulary = deps.apps.vocabulary;

  const page = async (request: Request, session: WebSession, status = 200, error?: string) => {
    const frame = kit.frameFor(request, session, (t) => t("vocab.title"));
    const notice: PageNotice | undefined = error ? { text: error, error: true } : kit.noticeOf(request, frame.t, VOCAB_NOTICES, "notice.vocab.");
    const terms = (await vocabulary.list(kit.actor(session))).map(renderTerm);
    return html(<VocabularyPage frame={frame} terms={terms} notice={notice} />, status);
  };

  /** Runs a change; a refusal the person can fix (a field, a duplicate, a full glossary) is shown on the page. */
  const change = async (request: Request, session: WebSession, act: () => Promise<unknown>, notice: string) => {
    try {
      await act();
    } catch (error) {
      if (error instanceof ApiError && error.status !== 404) return page(request, session, error.status, refusalText(error));
      throw error;
    }
    return redirect(`/settings/vocabulary?notice=${notice}`);
  };

  app
    .get("/settings/vocabulary", ({ request }) => page(request, kit.requireSession(request)))
    .post("/settings/vocabulary", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const parsed = createTermBody.safeParse(termForm(form));
      if (!parsed.success) return page(request, session, 400, refusalText(parsed.error));
      return change(request, session, () => vocabulary.create(kit.actor(session), parsed.data), "added");
    })
    .post("/settings/vocabulary/:termId", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const parsed = patchTermBody.safeParse(termForm(form));
      if (!parsed.success) return page(request, session, 400, refusalText(parsed.error));
      // Another account's term, or none: the use case's 404, the web app's not-found page.
      return change(request, session, () => vocabulary.update(kit.actor(session), params.termId, parsed.data), "saved");
    })
    .post("/settings/vocabulary/:termId/delete", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      await vocabulary.delete(kit.actor(session), params.termId);
      return redirect("/settings/vocabulary?notice=deleted");
    });
}

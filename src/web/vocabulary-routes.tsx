import type { Elysia } from "elysia";
import type { WebSession } from "../auth/app.ts";
import { ApiError } from "../errors/api-error.ts";
import { parseOrThrow } from "../http/validation.ts";
import { createTermBody, MAX_TERMS, MAX_VARIANTS, patchTermBody, renderTerm } from "../vocabulary/app.ts";
import { fieldsOf } from "./error-pages.tsx";
import { redirectWithFormError } from "./form-state.ts";
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

/** Settings, Vocabulary: add, change and delete the account glossary's terms (post/redirect/get). */
export function vocabularyPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  const vocabulary = deps.apps.vocabulary;

  const page = async (request: Request, session: WebSession) => {
    const frame = kit.frameFor(request, session, (t) => t("vocab.title"));
    const notice: PageNotice | undefined = kit.noticeOf(request, frame.t, VOCAB_NOTICES, "notice.vocab.");
    const terms = (await vocabulary.list(kit.actor(session))).map(renderTerm);
    return html(<VocabularyPage frame={frame} terms={terms} notice={notice} />);
  };

  /**
   * Runs a change; a refusal the person can fix (a field, a duplicate, a full glossary) comes back
   * to the form it came from (`which`: a term's id, or "new"), what was typed kept, the message at the field.
   */
  const change = async (request: Request, which: string, form: URLSearchParams, act: () => Promise<unknown>, notice: string) => {
    try {
      await act();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 404) throw error;
      const fields = error.code === "vocabulary_term_exists" ? { term: "err.field.termExists" as const } : fieldsOf(error, {}, { "term:too_many_terms": "err.field.tooManyTerms", "variants:too_long": "err.field.variants" });
      return redirectWithFormError(request, "/settings/vocabulary", { fields, values: { for: which, term: form.get("term"), variants: form.get("variants") }, params: { max: MAX_VARIANTS, terms: MAX_TERMS } });
    }
    return redirect(`/settings/vocabulary?notice=${notice}`);
  };

  app
    .get("/settings/vocabulary", ({ request }) => page(request, kit.requireSession(request)))
    .post("/settings/vocabulary", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      return change(request, "new", form, () => vocabulary.create(kit.actor(session), parseOrThrow(createTermBody, termForm(form))), "added");
    })
    .post("/settings/vocabulary/:termId", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      // Another account's term, or none: the use case's 404, the web app's not-found page.
      return change(request, params.termId, form, () => vocabulary.update(kit.actor(session), params.termId, parseOrThrow(patchTermBody, termForm(form))), "saved");
    })
    .post("/settings/vocabulary/:termId/delete", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      await vocabulary.delete(kit.actor(session), params.termId);
      return redirect("/settings/vocabulary?notice=deleted");
    });
}

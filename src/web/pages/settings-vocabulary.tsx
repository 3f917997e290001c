import { MAX_TERM_CHARS, MAX_TERMS, MAX_VARIANTS, type RenderedTerm } from "../../vocabulary/app.ts";
import { CsrfField, Layout, Notice, PostButton, type PageFrame, type PageNotice } from "../layout.tsx";
import { SettingsNav } from "./settings.tsx";
import { fieldAttrs } from "../form-state.ts";
import { FieldError } from "./fields.tsx";

/** A term's spoken variants as the form's text area holds them: one a line. */
function variantLines(variants: readonly string[]): string {
  return variants.join("\n");
}

function TermFields({ frame, term }: { frame: PageFrame; term?: RenderedTerm }) {
  const { t } = frame;
  // A refused form (form-state.ts) comes back as it was typed, to the form it came from.
  const state = frame.formState?.values.for === (term?.id ?? "new") ? frame.formState : null;
  return (
    <>
      <label>
        {t("vocab.term")}
        <input name="term" required maxLength={MAX_TERM_CHARS * 2} value={state ? (state.values.term ?? "") : (term?.term ?? "")} {...fieldAttrs("term", state)} />
      </label>
      <FieldError name="term" state={state} t={t} />
      <label>
        {t("vocab.variants")}
        <textarea name="variants" rows={3} maxLength={(MAX_TERM_CHARS * 2 + 1) * MAX_VARIANTS} {...fieldAttrs("variants", state)}>
          {state ? (state.values.variants ?? "") : variantLines(term?.variants ?? [])}
        </textarea>
        <small class="muted">{t("vocab.variantsHelp", { max: MAX_VARIANTS })}</small>
      </label>
      <FieldError name="variants" state={state} t={t} />
    </>
  );
}

/** Settings, Vocabulary: the account glossary (issue 23), the same terms as /v1/vocabulary. */
export function VocabularyPage(props: { frame: PageFrame; terms: RenderedTerm[]; notice?: PageNotice }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="vocabulary" />
      <Notice notice={props.notice} />
      <section aria-labelledby="vocab-title">
        <h2 id="vocab-title">{t("vocab.title")}</h2>
        <p class="muted">{t("vocab.intro")}</p>
        <p class="muted">{t("vocab.count", { count: props.terms.length, max: MAX_TERMS })}</p>
        {props.terms.length === 0 && <p class="muted">{t("vocab.none")}</p>}
        {props.terms.map((term) => (
          <article class="endpoint" id={term.id}>
            <form class="stack wide" method="post" action={`/settings/vocabulary/${term.id}`}>
              <CsrfField frame={frame} />
              <TermFields frame={frame} term={term} />
              <button type="submit" class="secondary">
                {t("meeting.save")}
              </button>
            </form>
            <PostButton frame={frame} action={`/settings/vocabulary/${term.id}/delete`} label={t("hooks.delete")} kind="danger" ariaLabel={t("vocab.deleteNamed", { term: term.term })} />
          </article>
        ))}
      </section>
      <section aria-labelledby="new-term-title">
        <h2 id="new-term-title">{t("vocab.new")}</h2>
        <form class="stack wide" method="post" action="/settings/vocabulary">
          <CsrfField frame={frame} />
          <TermFields frame={frame} />
          <button type="submit">{t("vocab.add")}</button>
        </form>
      </section>
    </Layout>
  );
}

import { ENTITY_KINDS, MAX_CASE_NUMBER_PATTERN, type RedactionDefaults } from "../../meetings/app.ts";
import type { MessageKey } from "../i18n.ts";
import { CsrfField, Layout, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import { SettingsNav } from "./settings.tsx";
import { fieldAttrs } from "../form-state.ts";
import { FieldError } from "./fields.tsx";

/**
 * Settings, Redaction (issue 23): the account's default for meetings whose form or request does
 * not say, the entity kinds it redacts, whether it silences the recording, and the account's
 * case/file number pattern. The same settings as GET/PUT /v1/redaction.
 */
export function RedactionSettingsPage({ frame, defaults: saved, notice }: { frame: PageFrame; defaults: RedactionDefaults; notice?: PageNotice }) {
  const { t } = frame;
  // A refused form (form-state.ts) comes back as it was filled in, the message at the field.
  const state = frame.formState;
  const defaults = state
    ? { ...saved, enabled: state.values.enabled === "true", audio: state.values.audio === "true", entities: (state.values.entities ?? "").split(" ") as typeof saved.entities, caseNumberPattern: state.values.case_number_pattern ?? null }
    : saved;
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="redaction" />
      <Notice notice={notice} />
      <section aria-labelledby="redaction-title">
        <h2 id="redaction-title">{t("redaction.title")}</h2>
        <p class="muted">{t("redaction.intro")}</p>
        <form class="stack" method="post" action="/settings/redaction">
          <CsrfField frame={frame} />
          <label class="inline">
            <input type="checkbox" name="enabled" value="true" checked={defaults.enabled} /> {t("redaction.enabled")}
          </label>
          <fieldset>
            <legend>{t("redaction.kinds")}</legend>
            {ENTITY_KINDS.map((kind) => (
              <label class="inline">
                <input type="checkbox" name="entities" value={kind} checked={defaults.entities.includes(kind)} /> {t(`redaction.kind.${kind}` as MessageKey)}
              </label>
            ))}
          </fieldset>
          <label class="inline">
            <input type="checkbox" name="audio" value="true" checked={defaults.audio} /> {t("redaction.audioDefault")}
          </label>
          <label>
            {t("redaction.casePattern")}
            <input name="case_number_pattern" value={defaults.caseNumberPattern ?? ""} maxLength={MAX_CASE_NUMBER_PATTERN * 2} placeholder="CASE-\d{4}-\d{3}" spellcheck={false} {...fieldAttrs("case_number_pattern", state)} />
            <small class="muted">{t("redaction.casePatternHelp", { max: MAX_CASE_NUMBER_PATTERN })}</small>
          </label>
          <FieldError name="case_number_pattern" state={state} t={t} />
          <p class="muted">{t("redaction.irreversible")}</p>
          <button type="submit">{t("meeting.save")}</button>
        </form>
      </section>
    </Layout>
  );
}

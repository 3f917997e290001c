import type { PageFrame } from "../layout.tsx";
import { fieldAttrs, fieldErrorId, type FormState } from "../form-state.ts";
import type { Translate } from "../i18n.ts";
import { MAX_MEETING_TERMS, MAX_TERM_CHARS } from "../../vocabulary/app.ts";

export const LANGUAGES = ["auto", "en", "fr", "de", "es", "it", "nl", "pt"] as const;

/** A language's name in the person's language ("français", "English"), from its code; the code when unknown. */
export function languageNames(locale: string): (code: string) => string {
  const names = new Intl.DisplayNames([locale], { type: "language", fallback: "code" });
  return (code) => {
    try {
      return names.of(code) ?? code;
    } catch {
      return code;
    }
  };
}

/** A new meeting's title and spoken language: the upload, text and record forms all ask them (`state`: a refused form's, form-state.ts). */
export function TitleAndLanguage({ frame, state }: { frame: PageFrame; state?: FormState | null }) {
  const { t } = frame;
  const names = languageNames(frame.locale);
  return (
    <>
      <label>
        {t("meeting.field.title")}
        <input name="title" maxLength={300} value={state?.values.title} {...fieldAttrs("title", state)} />
      </label>
      <FieldError name="title" state={state} t={t} />
      <label>
        {t("upload.language")}
        <select name="language" {...fieldAttrs("language", state)}>
          {LANGUAGES.map((code) => (
            <option value={code} selected={state?.values.language === code}>
              {code === "auto" ? t("upload.languageAuto") : names(code)}
            </option>
          ))}
        </select>
      </label>
      <FieldError name="language" state={state} t={t} />
    </>
  );
}

/** A new meeting's own vocabulary (optional): one term a line, given to whisper before the account's. */
export function VocabularyField({ frame, state }: { frame: PageFrame; state?: FormState | null }) {
  const { t } = frame;
  return (
    <>
      <label>
        {t("vocab.meetingField")}
        <textarea name="vocabulary" rows={2} maxLength={(MAX_TERM_CHARS * 2 + 1) * MAX_MEETING_TERMS} {...fieldAttrs("vocabulary", state)}>
          {state?.values.vocabulary}
        </textarea>
        <small class="muted">{t("vocab.meetingHelp", { max: MAX_MEETING_TERMS })}</small>
      </label>
      <FieldError name="vocabulary" state={state} t={t} />
    </>
  );
}

/**
 * A refused field's message (form-state.ts), placed next to the field; the field itself carries
 * `{...fieldAttrs(name, state)}` (aria-invalid, aria-describedby naming this element). Renders
 * nothing when the field was not refused.
 */
export function FieldError({ name, state, t }: { name: string; state: FormState | null | undefined; t: Translate }) {
  const key = state?.fields[name];
  if (!key) return null;
  return (
    <span class="field-error" id={fieldErrorId(name)}>
      {t(key, state.params)}
    </span>
  );
}

/** A refused form's message for the form as a whole (FormState.form or .formText), above the form; nothing otherwise. */
export function FormError({ state, t }: { state: FormState | null | undefined; t: Translate }) {
  const text = state?.form ? t(state.form, state.params) : state?.formText;
  if (!text) return null;
  return (
    <p class="error" role="alert" id="form-error">
      {text}
    </p>
  );
}

import type { MeetingView, RedactionDefaults } from "../../meetings/app.ts";
import type { MessageKey } from "../i18n.ts";
import type { PageFrame } from "../layout.tsx";

/**
 * The "Redact personal data" control of the upload, text and record forms (issue 23): one select
 * named as the API's field, redact_pii, so the form posts the same values with or without
 * JavaScript: false, or the account default's kinds as JSON, text only or with the recording
 * silenced. It starts on the account's default (Settings, Redaction).
 */
export function RedactionField({ frame, defaults }: { frame: PageFrame; defaults: RedactionDefaults }) {
  const { t } = frame;
  const value = (audio: boolean) => JSON.stringify({ entities: defaults.entities, audio });
  const chosen = !defaults.enabled ? "off" : defaults.audio ? "audio" : "text";
  return (
    <label>
      {t("redaction.field")}
      <select name="redact_pii">
        <option value="false" selected={chosen === "off"}>
          {t("redaction.off")}
        </option>
        <option value={value(false)} selected={chosen === "text"}>
          {t("redaction.text")}
        </option>
        <option value={value(true)} selected={chosen === "audio"}>
          {t("redaction.audio")}
        </option>
      </select>
      <small class="muted">{t("redaction.irreversible")}</small>
    </label>
  );
}

/** The meeting page's line on its redaction: asked, applied with what was replaced, the recording silenced. */
export function RedactionSummary({ frame, redaction }: { frame: PageFrame; redaction: MeetingView["redaction"] }) {
  const { t } = frame;
  if (!redaction) return null;
  if (!redaction.applied) return <p class="muted" data-redaction>{t("redaction.pending")}</p>;
  // In the order the kinds were asked for, as the transcript's note lists them.
  const order = (kind: string) => (redaction.requested.includes(kind) ? redaction.requested.indexOf(kind) : Infinity);
  const counts = Object.entries(redaction.entities)
    .sort(([a], [b]) => order(a) - order(b))
    .map(([kind, count]) => `${t(`redaction.kind.${kind}` as MessageKey)} (${count})`);
  return (
    <p class="notice" data-redaction>
      {t("redaction.applied")} {counts.length ? counts.join(", ") : t("redaction.noneFound")}
      {redaction.audio && ` · ${t("redaction.audioSilenced")}`}
    </p>
  );
}

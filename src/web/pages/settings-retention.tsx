import { MAX_RETENTION_DAYS, type RetentionPolicy } from "../../retention/app.ts";
import { CsrfField, Layout, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import { SettingsNav } from "./settings.tsx";
import { fieldAttrs } from "../form-state.ts";
import { FieldError } from "./fields.tsx";

/** Settings → Retention: the account's retention policy (issue 23), the web app's side of PUT /v1/retention. */
export function RetentionSettingsPage(props: { frame: PageFrame; policy: Pick<RetentionPolicy, "deleteAfterDays" | "recordingDeleteAfterDays">; notice?: PageNotice }) {
  const { frame, policy } = props;
  const { t } = frame;
  const period = (days: number | null) => (days === null ? t("retention.never") : t("retention.afterDays", { days }));
  /** One period's field: a number of days, empty for off, with its help line. */
  // A refused form (form-state.ts) comes back as it was typed, the message at the field.
  const state = frame.formState;
  const daysField = (name: string, label: string, value: number | null, help: string) => (
    <>
      <label>
        {label}
        <input type="number" name={name} value={state ? (state.values[name] ?? "") : value === null ? "" : String(value)} min={1} max={MAX_RETENTION_DAYS} step={1} inputMode="numeric" {...fieldAttrs(name, state, `${name}-help`)} />
      </label>
      <FieldError name={name} state={state} t={t} />
      <small id={`${name}-help`} class="muted">
        {help}
      </small>
    </>
  );
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="retention" />
      <Notice notice={props.notice} />
      <section aria-labelledby="retention-title">
        <h2 id="retention-title">{t("retention.title")}</h2>
        <p class="muted">{t("retention.intro")}</p>
        <p id="retention-current">{t("retention.current", { whole: period(policy.deleteAfterDays), recording: period(policy.recordingDeleteAfterDays) })}</p>
        <form class="stack" method="post" action="/settings/retention">
          <CsrfField frame={frame} />
          {daysField("delete_after_days", t("retention.deleteAfter"), policy.deleteAfterDays, t("retention.deleteAfterHelp"))}
          {daysField("recording_delete_after_days", t("retention.recordingAfter"), policy.recordingDeleteAfterDays, t("retention.recordingAfterHelp"))}
          <p class="error">{t("retention.irreversible")}</p>
          <button type="submit">{t("retention.save")}</button>
        </form>
      </section>
    </Layout>
  );
}

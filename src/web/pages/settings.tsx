import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, type Locale } from "../../auth/app.ts";
import { CsrfField, Layout, Notice, PostButton, type PageFrame } from "../layout.tsx";
import { fieldAttrs } from "../form-state.ts";
import { FieldError } from "./fields.tsx";

const TABS = [
  ["profile", "/settings", "settings.profile"],
  ["developers", "/settings/developers", "settings.developers"],
  ["webhooks", "/settings/webhooks", "hooks.title"],
  ["usage", "/settings/usage", "usage.title"],
  ["activity", "/settings/activity", "activity.title"],
  ["retention", "/settings/retention", "retention.title"],
  ["vocabulary", "/settings/vocabulary", "vocab.title"],
  ["redaction", "/settings/redaction", "redaction.title"],
  ["connected-apps", "/settings/connected-apps", "apps.title"],
] as const;

export function SettingsNav({ frame, current }: { frame: PageFrame; current: (typeof TABS)[number][0] }) {
  const { t } = frame;
  return (
    <nav class="tabs" aria-label={t("nav.settings")}>
      {TABS.map(([id, href, label]) => (
        <a href={href} aria-current={current === id ? "page" : undefined}>
          {t(label)}
        </a>
      ))}
    </nav>
  );
}

export function SettingsPage(props: { frame: PageFrame; email: string; name: string | null; plan: string; locale: Locale | null; notice?: { text: string; error?: boolean } }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="profile" />
      <Notice notice={props.notice} />
      <section aria-labelledby="profile-title">
        <h2 id="profile-title">{t("settings.profile")}</h2>
        <dl class="facts">
          <dt>{t("login.email")}</dt>
          <dd>{props.email}</dd>
          {props.name && (
            <>
              <dt>{t("settings.name")}</dt>
              <dd>{props.name}</dd>
            </>
          )}
          <dt>{t("settings.plan")}</dt>
          <dd>{props.plan}</dd>
        </dl>
      </section>
      <section aria-labelledby="language-title">
        <h2 id="language-title">{t("settings.language")}</h2>
        <form class="stack" method="post" action="/settings/language">
          <CsrfField frame={frame} />
          <label>
            {t("settings.language")}
            <select name="locale">
              <option value="" selected={props.locale === null}>
                {t("settings.browserLanguage")}
              </option>
              <option value="en" selected={props.locale === "en"}>
                English
              </option>
              <option value="fr" selected={props.locale === "fr"}>
                Français
              </option>
            </select>
          </label>
          <button type="submit">{t("meeting.save")}</button>
        </form>
      </section>
      <section aria-labelledby="password-title">
        <h2 id="password-title">{t("settings.password")}</h2>
        <form class="stack" method="post" action="/settings/password">
          <CsrfField frame={frame} />
          <label>
            {t("settings.currentPassword")}
            <input type="password" name="current" required autocomplete="current-password" maxLength={MAX_PASSWORD_LENGTH} {...fieldAttrs("current", frame.formState)} />
          </label>
          <FieldError name="current" state={frame.formState} t={t} />
          <label>
            {t("settings.newPassword")}
            <input type="password" name="password" required autocomplete="new-password" minLength={MIN_PASSWORD_LENGTH} maxLength={MAX_PASSWORD_LENGTH} {...fieldAttrs("password", frame.formState)} />
          </label>
          <FieldError name="password" state={frame.formState} t={t} />
          <button type="submit">{t("settings.changePassword")}</button>
        </form>
      </section>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">{t("settings.sessions")}</h2>
        <PostButton frame={frame} action="/settings/sign-out-everywhere" label={t("settings.signOutEverywhere")} kind="secondary" />
      </section>
    </Layout>
  );
}

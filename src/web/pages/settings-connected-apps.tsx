import type { Scope } from "../../auth/app.ts";
import { CsrfField, Layout, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import { scopeSentenceKey } from "./oauth-consent.tsx";
import { SettingsNav } from "./settings.tsx";
import { ConfirmBox } from "./confirm.tsx";

/** One grant as Connected apps shows it. */
export interface ConnectedApp {
  id: string;
  clientName: string;
  /** The host that publishes the app's metadata document, else its registered redirect URI's; null when unknown. */
  host: string | null;
  scopes: readonly Scope[];
  createdAt: number;
  lastUsedAt: number | null;
}

/** Settings, Connected apps (issue 24): the apps a person allowed (AI assistants), each revocable. */
export function ConnectedAppsPage(props: { frame: PageFrame; apps: readonly ConnectedApp[]; notice?: PageNotice }) {
  const { frame } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="connected-apps" />
      <Notice notice={props.notice} />
      <section aria-labelledby="apps-title">
        <h2 id="apps-title">{t("apps.title")}</h2>
        <p class="muted">{t("apps.intro")}</p>
        {props.apps.length === 0 && <p class="muted">{t("apps.none")}</p>}
        {props.apps.map((app) => (
          <article class="endpoint" id={app.id} aria-labelledby={`${app.id}-name`}>
            <h3 id={`${app.id}-name`}>
              {app.clientName} {app.host && <span class="meta small">{app.host}</span>}
            </h3>
            <dl class="facts">
              <dt>{t("apps.scopes")}</dt>
              <dd>
                <ul>
                  {app.scopes.map((scope) => (
                    <li>
                      {t(scopeSentenceKey(scope))} <code class="small">{scope}</code>
                    </li>
                  ))}
                </ul>
              </dd>
              <dt>{t("apps.firstUsed")}</dt>
              <dd>{date.format(new Date(app.createdAt))} UTC</dd>
              <dt>{t("apps.lastUsed")}</dt>
              <dd>{app.lastUsedAt !== null ? `${date.format(new Date(app.lastUsedAt))} UTC` : t("apps.never")}</dd>
            </dl>
            <form class="actions" method="post" action={`/settings/connected-apps/${app.id}/revoke`} data-confirm={t("err.confirm.revokeAppAsk", { name: app.clientName })}>
              <CsrfField frame={frame} />
              <ConfirmBox label={t("apps.confirm", { name: app.clientName })} />
              <button type="submit" class="danger" aria-label={t("apps.revokeNamed", { name: app.clientName })}>
                {t("apps.revoke")}
              </button>
            </form>
          </article>
        ))}
      </section>
    </Layout>
  );
}

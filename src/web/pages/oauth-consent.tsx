import type { Scope } from "../../auth/app.ts";
import type { MessageKey } from "../i18n.ts";
import { CsrfField, Layout, Notice, type PageFrame, type PageNotice } from "../layout.tsx";

/** The sentence that tells a person what a scope lets an app do (messages/oauth-*.ts; a scope without one does not compile). */
export function scopeSentenceKey(scope: Scope): MessageKey {
  return `scope.${scope}`;
}

export interface ConsentProps {
  frame: PageFrame;
  /** The client's name as it calls itself (its metadata document or its registration): shown as text, never trusted as markup. */
  clientName: string;
  clientId: string;
  /** The app registered itself (RFC 7591): its name is its own claim, which the page says. */
  selfNamed: boolean;
  /** Where the answer goes: the redirect URI's host (or its scheme, for an app's private-use scheme). */
  redirectHost: string;
  /** The scopes the client asked for, each a checkbox the person may untick. */
  scopes: readonly Scope[];
  /** The authorization request's own parameters, posted back and validated again with the decision. */
  request: readonly (readonly [string, string])[];
  email: string;
  notice?: PageNotice;
}

/** The consent page (issue 24): who asks, where the answer goes, what it may do; narrow, approve or deny. */
export function ConsentPage(props: ConsentProps) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("oauth.title")}</h1>
      <Notice notice={props.notice} />
      <section class="endpoint" aria-labelledby="consent-client">
        <h2 id="consent-client">{t("oauth.asks", { name: props.clientName })}</h2>
        <p>{t("oauth.redirectHost", { host: props.redirectHost })}</p>
        <p class="muted small">{t("oauth.clientId", { clientId: props.clientId })}</p>
        {props.selfNamed && <p class="muted small">{t("oauth.selfNamed")}</p>}
        <form class="stack wide" method="post" action="/oauth/authorize/decision">
          <CsrfField frame={frame} />
          {props.request.map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <fieldset>
            <legend>{t("oauth.scopes")}</legend>
            {props.scopes.map((scope) => (
              <label class="inline">
                <input type="checkbox" name="approved_scope" value={scope} checked />
                <span>
                  {t(scopeSentenceKey(scope))} <code class="small">{scope}</code>
                </span>
              </label>
            ))}
            <p class="muted small">{t("oauth.narrow")}</p>
          </fieldset>
          <div class="actions">
            <button type="submit" name="decision" value="approve">
              {t("oauth.approve")}
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              {t("oauth.deny")}
            </button>
          </div>
        </form>
        <p class="muted small">{t("oauth.revokeLater")}</p>
        <p class="muted small">{t("oauth.signedInAs", { email: props.email })}</p>
      </section>
    </Layout>
  );
}

/** An authorization request that cannot be answered by a redirect (unknown client, unregistered redirect URI): a page, never a redirect. */
export function AuthorizationErrorPage({ frame, reason }: { frame: PageFrame; reason: string }) {
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("oauth.errorTitle")}</h1>
      <p class="error" role="alert">
        {reason}
      </p>
      <p>{t("oauth.errorIntro")}</p>
    </Layout>
  );
}

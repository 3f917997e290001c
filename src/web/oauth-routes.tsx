import type { Elysia } from "elysia";
import type { WebSession } from "../auth/app.ts";
import { isScope, type Scope } from "../auth/scopes.ts";
import type { GrantView, ValidatedRequest } from "../oauth/app.ts";
import { html, redirect } from "./http.ts";
import { PageRefusal, SignInRequired, type WebKit } from "./kit.ts";
import type { PageNotice } from "./layout.tsx";
import { AuthorizationErrorPage, ConsentPage } from "./pages/oauth-consent.tsx";
import { ConnectedAppsPage, type ConnectedApp } from "./pages/settings-connected-apps.tsx";
import { consentSecurityHeaders } from "./security-headers.ts";

/** The authorization endpoint (RFC 6749 §3.1): the web app's, since a person signs in and consents there. */
export const AUTHORIZE_PATH = "/oauth/authorize";
/**
 * The longest authorization request (path and query) the endpoint reads, and the longest one kept
 * across a sign-in (routes.tsx's afterSignIn): a client_id URL, a redirect URI, a resource, a
 * state and a PKCE challenge fit many times over.
 */
export const MAX_AUTHORIZE_REQUEST_CHARS = 4096;
/** The consent form's own fields; every other field is the authorization request, posted back and validated again. */
const DECISION_FIELDS = new Set(["_csrf", "decision", "approved_scope"]);

/** The consent page (GET /oauth/authorize, POST /oauth/authorize/decision) and Settings → Connected apps. */
export function oauthPages(app: Elysia, kit: WebKit): void {
  const oauth = kit.deps.apps.oauth;

  const errorPage = (request: Request, reason: string, status = 400) => {
    const frame = kit.frameFor(request, kit.sessionOf(request), (t) => t("oauth.errorTitle"));
    return html(<AuthorizationErrorPage frame={frame} reason={reason} />, status);
  };

  /**
   * The request validated by the authorization server (oauth/app.ts), or the answer to give
   * instead: a page for what cannot be sent back safely (an unknown client, an unregistered
   * redirect URI: never a redirect, so never an open redirect), else a redirect to the client's
   * registered URI carrying the error, its state and our iss.
   */
  const check = async (request: Request, params: URLSearchParams) => {
    // A parameter sent twice (RFC 6749 §3.1 forbids it) could mean two redirect URIs: nothing is
    // sent back to either.
    const names = [...params.keys()];
    if (new Set(names).size !== names.length) return { answer: errorPage(request, kit.frameFor(request, undefined, () => "").t("oauth.repeated")) };
    const checked = await oauth.checkAuthorizationRequest(Object.fromEntries(params));
    if (checked.kind === "page_error") return { answer: errorPage(request, checked.message) };
    if (checked.kind === "redirect_error") return { answer: redirect(checked.redirectTo) };
    return { valid: checked.request };
  };

  const consentPage = (request: Request, session: WebSession, valid: ValidatedRequest, params: URLSearchParams, status = 200, notice?: PageNotice) => {
    const frame = kit.frameFor(request, session, (t) => t("oauth.title"));
    const shown = [...params].filter(([name]) => !DECISION_FIELDS.has(name));
    const page = (
      <ConsentPage
        frame={frame}
        clientName={valid.client.name}
        clientId={valid.client.clientId}
        selfNamed={valid.client.kind === "dcr"}
        redirectHost={valid.redirectHost}
        scopes={valid.scopes}
        request={shown}
        email={session.user.email}
        notice={notice}
      />
    );
    return html(page, status, [], consentSecurityHeaders(valid.redirectUri));
  };

  const appsPage = async (request: Request, session: WebSession, status = 200, notice?: PageNotice) => {
    const frame = kit.frameFor(request, session, (t) => t("apps.title"));
    const shown = notice ?? kit.noticeOf(request, frame.t, ["revoked"], "notice.apps.");
    const grants = await oauth.listGrants(kit.actor(session));
    return html(<ConnectedAppsPage frame={frame} apps={grants.map(connectedApp)} notice={shown} />, status);
  };

  app
    .get(AUTHORIZE_PATH, async ({ request }) => {
      const url = new URL(request.url);
      if (url.pathname.length + url.search.length > MAX_AUTHORIZE_REQUEST_CHARS) return errorPage(request, kit.frameFor(request, undefined, () => "").t("oauth.tooLong"));
      // Validated before sign-in: a request that cannot succeed is answered now, not after the
      // person typed a password; a valid one comes back here after sign-in (routes.tsx keeps it).
      const { answer, valid } = await check(request, url.searchParams);
      if (answer) return answer;
      const session = kit.sessionOf(request);
      if (!session) throw new SignInRequired();
      return consentPage(request, session, valid, url.searchParams);
    })
    .post(`${AUTHORIZE_PATH}/decision`, async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const params = new URLSearchParams([...form].filter(([name]) => !DECISION_FIELDS.has(name)));
      // The hidden fields are only the request as the browser holds it: validated again here, as
      // if it had just arrived, so nothing in them is trusted beyond what the check accepts.
      const { answer, valid } = await check(request, params);
      if (answer) return answer;
      const decision = form.get("decision");
      if (decision === "deny") return redirect(oauth.denyRedirect(valid));
      if (decision !== "approve") throw new PageRefusal(400, kit.frameFor(request, session, () => "").t("oauth.needScope"));
      // Narrowing only: a scope the client did not ask for is never added by the form.
      const approved = [...new Set(form.getAll("approved_scope"))].filter((scope): scope is Scope => isScope(scope) && valid.scopes.includes(scope));
      if (approved.length === 0) return consentPage(request, session, valid, params, 400, { text: kit.frameFor(request, session, () => "").t("oauth.needScope"), error: true });
      const { redirectTo } = await oauth.issueCode(kit.actor(session), valid, approved);
      return redirect(redirectTo);
    })
    .get("/settings/connected-apps", ({ request }) => appsPage(request, kit.requireSession(request)))
    .post("/settings/connected-apps/:grantId/revoke", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      if (form.get("confirm") !== "yes") return appsPage(request, session, 400, { text: kit.frameFor(request, session, () => "").t("apps.confirmMissing"), error: true });
      // Only the person's own grant: another account's id is not found, and nothing is revoked.
      if (!(await oauth.revokeGrant(kit.actor(session), params.grantId))) throw new PageRefusal(404, "");
      return redirect("/settings/connected-apps?notice=revoked");
    });
}

/**
 * A grant as Connected apps shows it. The host is the client_id's when it is a metadata document's
 * URL (the host that vouches for the app); a registered app has none it proved.
 */
function connectedApp(grant: GrantView): ConnectedApp {
  return { id: grant.id, clientName: grant.clientName, host: clientHost(grant.clientId), scopes: grant.scopes, createdAt: grant.createdAt, lastUsedAt: grant.lastUsedAt };
}

export function clientHost(clientId: string): string | null {
  return URL.canParse(clientId) && clientId.startsWith("https://") ? new URL(clientId).host : null;
}

import type { Elysia } from "elysia";
import { isScope, type Scope, type WebSession } from "../auth/app.ts";
import { ClientRefused, type ValidatedRequest } from "../oauth/app.ts";
import { html, redirect } from "./http.ts";
import { PageRefusal, SignInRequired, type WebKit } from "./kit.ts";
import { redirectWithFormError } from "./form-state.ts";
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

  /** The page's language: the signed-in person's, else the browser's. */
  const tOf = (request: Request) => kit.frameFor(request, kit.sessionOf(request), () => "").t;
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
    // The same bound whether the request came in the URL or back with the decision.
    if (AUTHORIZE_PATH.length + 1 + params.toString().length > MAX_AUTHORIZE_REQUEST_CHARS) return { answer: errorPage(request, tOf(request)("oauth.tooLong")) };
    // A parameter sent twice (RFC 6749 §3.1 forbids it) could mean two redirect URIs: nothing is
    // sent back to either.
    const names = [...params.keys()];
    if (new Set(names).size !== names.length) return { answer: errorPage(request, tOf(request)("oauth.repeated")) };
    const checked = await oauth.checkAuthorizationRequest(Object.fromEntries(params));
    if (checked.kind === "page_error") return { answer: errorPage(request, checked.message) };
    if (checked.kind === "redirect_error") return { answer: redirect(checked.redirectTo) };
    return { valid: checked.request };
  };

  const consentPage = (request: Request, session: WebSession, valid: ValidatedRequest, params: URLSearchParams) => {
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
      />
    );
    return html(page, 200, [], consentSecurityHeaders(valid.redirectUri));
  };

  const appsPage = async (request: Request, session: WebSession) => {
    const frame = kit.frameFor(request, session, (t) => t("apps.title"));
    const shown = kit.noticeOf(request, frame.t, ["revoked"], "notice.apps.");
    const grants = await oauth.listGrants(kit.actor(session));
    const apps: ConnectedApp[] = await Promise.all(
      grants.map(async (grant) => ({
        id: grant.id,
        clientName: grant.clientName,
        host: clientHost(grant.clientId) ?? (await registeredHost(grant.clientId)),
        scopes: grant.scopes,
        createdAt: grant.createdAt,
        lastUsedAt: grant.lastUsedAt,
      })),
    );
    return html(<ConnectedAppsPage frame={frame} apps={apps} notice={shown} />);
  };

  /**
   * A self-registered app's host: its first registered redirect URI's (where its consent went).
   * Only for a registered client_id, which resolveClient reads from the database (a metadata
   * document's URL is never fetched to draw this page); none when it is gone or turned off.
   */
  const registeredHost = async (clientId: string): Promise<string | null> => {
    try {
      const uri = (await oauth.resolveClient(clientId)).redirectUris[0];
      return uri && URL.canParse(uri) ? new URL(uri).host || null : null;
    } catch (error) {
      if (error instanceof ClientRefused) return null;
      throw error;
    }
  };

  app
    .get(AUTHORIZE_PATH, async ({ request }) => {
      const url = new URL(request.url);
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
      if (decision !== "approve") throw new PageRefusal(400, tOf(request)("oauth.needScope"));
      // Narrowing only: a scope the client did not ask for is never added by the form.
      const approved = [...new Set(form.getAll("approved_scope"))].filter((scope): scope is Scope => isScope(scope) && valid.scopes.includes(scope));
      // No scope left: back to the consent page (post/redirect/get), saying so.
      if (approved.length === 0) return redirectWithFormError(request, `${AUTHORIZE_PATH}?${params}`, { fields: {}, form: "oauth.needScope" });
      const { redirectTo } = await oauth.issueCode(kit.actor(session), valid, approved);
      return redirect(redirectTo);
    })
    .get("/settings/connected-apps", ({ request }) => appsPage(request, kit.requireSession(request)))
    .post("/settings/connected-apps/:grantId/revoke", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      if (form.get("confirm") !== "yes") return redirectWithFormError(request, "/settings/connected-apps", { fields: {}, form: "apps.confirmMissing" });
      // Only the person's own grant: another account's id is not found, and nothing is revoked.
      if (!(await oauth.revokeGrant(kit.actor(session), params.grantId))) throw new PageRefusal(404, "");
      return redirect("/settings/connected-apps?notice=revoked");
    });
}

/** The host of an app identified by its metadata document's URL (the host that vouches for it); null for a registered app. */
export function clientHost(clientId: string): string | null {
  return URL.canParse(clientId) && clientId.startsWith("https://") ? new URL(clientId).host : null;
}

import { Elysia } from "elysia";
import { SESSION_MAX_MS, SsoRefused } from "../auth/app.ts";
import { randomBase62 } from "../lib/ids.ts";
import { sameSecret } from "../lib/same-secret.ts";
import stylesheet from "./assets/app.css" with { type: "text" };
import { errorResponse, notFoundPage } from "./error-pages.tsx";
import { readFormBody } from "./form-body.ts";
import { formStateCleared, redirectWithFormError, type FormRefusal } from "./form-state.ts";
import { shownOnceCleared } from "./shown-once.ts";
import { cookie, html, redirect, respond, sameOrigin, setCookie } from "./http.ts";
import { translator } from "./i18n.ts";
import { bundleIsland } from "./islands/bundle.ts" with { type: "macro" };
import { pathOf } from "../http/pipeline.ts";
import { attemptRefusal, BROWSER_COOKIE, BROWSER_COOKIE_MAX_AGE_S, createWebKit, PageRefusal, SESSION_COOKIE, type WebDeps } from "./kit.ts";
import { clientPages } from "./client-routes.tsx";
import { listPages } from "./list-routes.tsx";
import { draftRoutes } from "./draft-routes.tsx";
import { faviconRoute } from "./favicon.ts";
import { liveRoutes } from "./live-routes.tsx";
import { meetingPages } from "./meeting-routes.tsx";
import { LoginPage } from "./pages/login.tsx";
import { settingsPages } from "./settings-routes.tsx";
import { usagePages } from "./usage-routes.tsx";
import { activityPages } from "./activity-routes.tsx";
import { retentionPages } from "./retention-routes.tsx";
import { vocabularyPages } from "./vocabulary-routes.tsx";
import { redactionSettingsPages } from "./redaction-routes.tsx";
import { adminPages } from "./admin-routes.tsx";
import { AUTHORIZE_PATH, MAX_AUTHORIZE_REQUEST_CHARS, oauthPages } from "./oauth-routes.tsx";
import { webhookPages } from "./webhook-routes.tsx";
import { sharePages } from "./share-routes.tsx";

export { SESSION_COOKIE } from "./kit.ts";
export type { WebDeps } from "./kit.ts";

/** The sign-in form's CSRF token before there is a session (double submit: cookie and hidden field). */
export const FORM_COOKIE = "verbatim_form";
/** The state of a single sign-on in flight, tying the provider's answer to this browser. */
const SSO_COOKIE = "verbatim_sso";

/** The client script of every page (web/islands/app.ts), bundled into the executable when it is built. */
export const APP_SCRIPT: string = bundleIsland("./app.ts");

// The API's paths: everything else is the web app's (a path that is no page gets its HTML 404).
// "/oauth/authorize" (the consent page, issue 24) is the web app's; the rest of /oauth/ (token,
// registration, revocation) is the API's.
const API_ROOTS = ["/api", "/healthz", "/readyz", "/metrics", "/docs", "/.well-known", "/oauth", "/mcp"];

/** `pathname` is `root` or below it. */
function under(pathname: string, root: string): boolean {
  return pathname.startsWith(root) && (pathname.length === root.length || pathname.charCodeAt(root.length) === 47);
}

/**
 * The paths the web app answers: every path but the API's (its own pages, and an HTML 404 for
 * any other). Asked for every request, so an API path is answered by its first characters and
 * nothing is allocated.
 */
export function isWebPath(pathname: string): boolean {
  if (pathname.startsWith("/api/")) return false;
  if (under(pathname, AUTHORIZE_PATH)) return true;
  for (const root of API_ROOTS) if (under(pathname, root)) return false;
  return true;
}

/**
 * Where to go after signing in: a page of this web app the browser was sent away from, as a path
 * on this site, else the meetings list. Anything that could leave the site (`//host`, a scheme,
 * a backslash) or is not a page of the app is ignored. An OAuth authorization request (the consent
 * page) may be longer than other pages' paths: its client_id, redirect_uri, resource and PKCE
 * challenge travel in it.
 */
export function afterSignIn(next: string | null | undefined): string {
  if (!next || next.length > (next.startsWith(`${AUTHORIZE_PATH}?`) ? MAX_AUTHORIZE_REQUEST_CHARS : 512) || !next.startsWith("/") || next.startsWith("//") || /[\\\u0000-\u001f]/.test(next)) return "/meetings";
  const path = pathOf(`http://site${next}`);
  if (!isWebPath(path) || path === "/" || path === "/logout" || path.startsWith("/login") || path.startsWith("/assets/")) return "/meetings";
  return next;
}

export function createWebApp(deps: WebDeps) {
  const kit = createWebKit(deps);

  const loginPage = (request: Request, status: number, error?: string, next?: string) => {
    const formToken = cookie(request, FORM_COOKIE) ?? randomBase62(32);
    const frame = kit.frameFor(request, undefined, (t) => t("login.title"));
    // After a refused sign-in (post/redirect/get): the email typed, and the message (shown by the layout).
    const email = frame.formState?.values.email;
    const returnTo = afterSignIn(next ?? new URL(request.url).searchParams.get("next"));
    return html(<LoginPage frame={frame} formToken={formToken} error={error} email={email} ssoName={deps.sso?.name} next={returnTo} />, status, [
      setCookie(request, deps.publicUrl(), FORM_COOKIE, formToken, 3600, "strict"),
    ]);
  };

  /** A browser signed in (its earlier session, if any, ended by the use case): the new session's cookie, then on to `next`. */
  const signedIn = (request: Request, sessionToken: string, next: string, extraCookies: string[] = []) =>
    redirect(afterSignIn(next), [setCookie(request, deps.publicUrl(), SESSION_COOKIE, sessionToken, SESSION_MAX_MS / 1000, "lax"), ...extraCookies]);
  const ssoCallback = () => `${deps.publicUrl()}/login/sso/callback`;

  const app = new Elysia()
    // Who is signed in is read once, before any page (pages then ask kit.sessionOf synchronously).
    .onRequest(async ({ request }) => {
      await kit.loadSession(request);
    })
    // A page that took a refused form's state (form-state.ts) or a secret (shown-once.ts) clears its cookie: shown once.
    .onAfterHandle(({ request, response }) => {
      if (response instanceof Response) for (const cleared of [...formStateCleared(request), ...shownOnceCleared(request)]) response.headers.append("set-cookie", cleared);
    })
    // Registered before the routes: Elysia applies a hook to the routes that follow it. A page for
    // a signed-out browser sends it to sign in; a refusal (CSRF, a meeting that is not the user's)
    // is its page; a refusal while reading a body (too large, too slow) is the client's, with its
    // status and our own sentence. Anything else is logged and answered with a page that says
    // nothing of it.
    // Registered before the routes: Elysia applies a hook to the routes that follow it. Every
    // failure of a page or a form is answered by the one error layer (error-pages.tsx).
    .onError(({ error, request }) => errorResponse(kit, request, error))
    .get("/", ({ request }) => redirect(kit.sessionOf(request) ? "/meetings" : "/login"))
    .get("/assets/app.css", () => respond(stylesheet, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" }))
    .get("/assets/app.js", () => respond(APP_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" }))
    .get("/login", ({ request }) => (kit.sessionOf(request) ? redirect(afterSignIn(new URL(request.url).searchParams.get("next"))) : loginPage(request, 200)))
    .post("/login", async ({ request }) => {
      const form = await readFormBody(request);
      const next = form.get("next");
      const email = (form.get("email") ?? "").trim().toLowerCase().slice(0, 320);
      // A refused sign-in comes back to the form (post/redirect/get: a reload sends no password
      // again), the email kept, never the password; a throttled one says when to try again, and
      // its redirect carries Retry-After for scripts (a browser follows it at once).
      const refused = (refusal: Pick<FormRefusal, "form" | "params">, headers: Record<string, string> = {}) => {
        const back = redirectWithFormError(request, `/login?next=${encodeURIComponent(afterSignIn(next))}`, { fields: {}, values: { email }, ...refusal });
        for (const [name, value] of Object.entries(headers)) back.headers.set(name, value);
        return back;
      };
      if (!sameOrigin(request, deps.publicUrl()) || !sameSecret(form.get("_csrf") ?? undefined, cookie(request, FORM_COOKIE))) return refused({ form: "login.expired" });
      const outcome = await kit.auth.signInWithPassword({
        email,
        password: form.get("password") ?? "",
        clientKey: kit.clientKey(request),
        browserToken: cookie(request, BROWSER_COOKIE),
        replacing: cookie(request, SESSION_COOKIE),
        clientAddress: kit.clientAddress(request),
      });
      if (outcome.kind === "throttled" || outcome.kind === "busy") {
        const refusal = attemptRefusal(outcome);
        return refused({ form: refusal.key, params: refusal.params }, refusal.headers);
      }
      if (outcome.kind !== "signed_in") return refused({ form: "login.failed" });
      return signedIn(request, outcome.sessionToken, afterSignIn(next), [
        setCookie(request, deps.publicUrl(), FORM_COOKIE, "", 0, "strict"),
        setCookie(request, deps.publicUrl(), BROWSER_COOKIE, outcome.browserToken, BROWSER_COOKIE_MAX_AGE_S, "strict"),
      ]);
    })
    .get("/login/sso", async ({ request }) => {
      if (!deps.sso) throw new PageRefusal(404, "");
      try {
        const returnTo = afterSignIn(new URL(request.url).searchParams.get("next"));
        const { url, state } = await kit.auth.startSso(ssoCallback(), returnTo, kit.clientKey(request));
        // Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies.
        return redirect(url, [setCookie(request, deps.publicUrl(), SSO_COOKIE, state, 600, "lax")]);
      } catch (error) {
        if (error instanceof SsoRefused) return loginPage(request, 502, error.message);
        throw error;
      }
    })
    .get("/login/sso/callback", async ({ request }) => {
      if (!deps.sso) throw new PageRefusal(404, "");
      const params = new URL(request.url).searchParams;
      const clearState = setCookie(request, deps.publicUrl(), SSO_COOKIE, "", 0, "lax");
      try {
        const outcome = await kit.auth.finishSso(
          { state: params.get("state"), cookieState: cookie(request, SSO_COOKIE), code: params.get("code"), error: params.get("error") },
          ssoCallback(),
          cookie(request, SESSION_COOKIE),
          kit.clientAddress(request),
        );
        if (outcome.kind === "unknown_person") {
          const t = translator(kit.frameFor(request, undefined, () => "").locale);
          return html(<LoginPage frame={kit.frameFor(request, undefined, (tr) => tr("login.title"))} formToken={randomBase62(32)} error={t("login.ssoUnknown")} ssoName={deps.sso.name} next={outcome.returnTo} />, 403, [clearState]);
        }
        return signedIn(request, outcome.sessionToken, outcome.returnTo, [clearState]);
      } catch (error) {
        if (error instanceof SsoRefused) return loginPage(request, 401, error.message);
        throw error;
      }
    })
    .post("/logout", async ({ request }) => {
      if (!kit.sessionOf(request)) return redirect("/login");
      const { session } = await kit.readForm(request);
      await kit.auth.signOut(session);
      return redirect("/login", [setCookie(request, deps.publicUrl(), SESSION_COOKIE, "", 0, "lax")]);
    });
  // Each area's pages, on the same app (typed loosely: the areas take the plain Elysia type).
  const areas = [faviconRoute, listPages, draftRoutes, liveRoutes, meetingPages, settingsPages, clientPages, webhookPages, usagePages, activityPages, retentionPages, vocabularyPages, redactionSettingsPages, adminPages, oauthPages, sharePages];
  for (const mount of areas) mount(app as unknown as Elysia, kit);
  app.all("*", ({ request }) => notFoundPage(kit, request));
  return {
    app,
    /** The user a request's live session belongs to, or null (the pipeline's rate-limit key; the page reuses the lookup). */
    signedInUserOf: (request: Request): Promise<string | null> => kit.loadSession(request).then((session) => session?.user.id ?? null),
  };
}

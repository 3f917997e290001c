import { Elysia } from "elysia";
import { render } from "preact-render-to-string";
import type { VNode } from "preact";
import { ApiError } from "../errors/api-error.ts";
import { randomBase62 } from "../lib/ids.ts";
import { sameSecret } from "../lib/same-secret.ts";
import type { Db } from "../db/client.ts";
import type { Clock } from "../lib/time.ts";
import { verifyPassword } from "../auth/passwords.ts";
import type { SignInThrottle } from "../auth/sign-in-throttle.ts";
import { findUserByEmail, passwordHashOf } from "../auth/users.ts";
import { createWebSession, endWebSession, endWebSessionOfToken, findWebSession, SESSION_MAX_MS, type WebSession } from "../auth/web-sessions.ts";
import { listMeetings } from "../meetings/query.ts";
import { listMeetingsQuery } from "../meetings/schema.ts";
import { contextOf } from "../http/request-context.ts";
import { readFormBody } from "./form-body.ts";
import { pickLocale, translator, type Translate } from "./i18n.ts";
import type { PageFrame } from "./layout.tsx";
import { LoginPage } from "./pages/login.tsx";
import { MeetingsPage, type MeetingFilters, type MeetingRow } from "./pages/meetings.tsx";
import { NotFoundPage } from "./pages/not-found.tsx";
import { securityHeaders } from "./security-headers.ts";
import stylesheet from "./assets/app.css" with { type: "text" };

export const SESSION_COOKIE = "verbatim_session";
/** The sign-in form's CSRF token before there is a session (double submit: cookie and hidden field). */
export const FORM_COOKIE = "verbatim_form";

/** The paths the web app answers; everything else is the API's. */
export function isWebPath(pathname: string): boolean {
  return pathname === "/" || pathname === "/login" || pathname === "/logout" || pathname === "/meetings" || pathname.startsWith("/meetings/") || pathname.startsWith("/assets/");
}

export interface WebDeps {
  db: Db;
  clock: Clock;
  throttle: SignInThrottle;
  publicApiUrl(): string;
  /** The service's public URL (--public-url, else the listening address). */
  publicUrl(): string;
  /** A failure that is not the client's: logged with the request id, never shown. */
  onUnexpectedError(error: unknown, requestId: string): void;
}

/** A web app response: the security headers on every one, and any cookies to set. */
function respond(body: string | null, status: number, headers: Record<string, string>, cookies: string[] = []): Response {
  const all = new Headers({ ...securityHeaders(), ...headers });
  for (const cookie of cookies) all.append("set-cookie", cookie);
  return new Response(body, { status, headers: all });
}

function html(page: VNode, status = 200, cookies: string[] = [], headers: Record<string, string> = {}): Response {
  return respond(`<!doctype html>${render(page)}`, status, { "content-type": "text/html; charset=utf-8", ...headers }, cookies);
}

function redirect(location: string, cookies: string[] = []): Response {
  return respond(null, 303, { location }, cookies);
}

function cookie(request: Request, name: string): string | undefined {
  return new Bun.CookieMap(request.headers.get("cookie") ?? "").get(name) ?? undefined;
}

/**
 * The origins this site is reached at: the address the request came to, and the configured public
 * URL (behind a TLS-terminating proxy the browser's https origin is only that one).
 */
function siteOrigins(request: Request, publicUrl: string): string[] {
  const origins = [new URL(request.url).origin];
  if (URL.canParse(publicUrl)) origins.push(new URL(publicUrl).origin);
  return origins;
}

/** Cookies are Secure when the browser reaches the site over https, directly or through the proxy. */
function setCookie(request: Request, publicUrl: string, name: string, value: string, maxAgeSeconds: number, sameSite: "lax" | "strict"): string {
  const secure = siteOrigins(request, publicUrl).some((origin) => origin.startsWith("https:"));
  return new Bun.Cookie(name, value, { path: "/", httpOnly: true, sameSite, secure, maxAge: maxAgeSeconds }).serialize();
}

/**
 * A state-changing form must come from this site: its hidden _csrf field matches the token the
 * server gave (the session's, or the sign-in form cookie's), and a browser's Origin header, when
 * sent, names this site.
 */
function sameOrigin(request: Request, publicUrl: string): boolean {
  const origin = request.headers.get("origin");
  return origin === null || siteOrigins(request, publicUrl).includes(origin);
}

export function createWebApp(deps: WebDeps) {
  const localeFor = (request: Request, session: WebSession | undefined) => pickLocale(session?.locale ?? null, request.headers.get("accept-language"));
  const frameFor = (request: Request, session: WebSession | undefined, title: (t: Translate) => string): PageFrame => {
    const locale = localeFor(request, session);
    const t = translator(locale);
    return { locale, t, title: title(t), csrfToken: session?.csrfToken };
  };
  const sessionOf = (request: Request) => {
    const token = cookie(request, SESSION_COOKIE);
    return token ? findWebSession(deps.db, token, deps.clock.now()) : undefined;
  };

  const loginPage = (request: Request, status: number, error?: string, email?: string) => {
    const formToken = cookie(request, FORM_COOKIE) ?? randomBase62(32);
    const frame = frameFor(request, undefined, (t) => t("login.title"));
    return html(<LoginPage frame={frame} formToken={formToken} error={error} email={email} />, status, [setCookie(request, deps.publicUrl(), FORM_COOKIE, formToken, 3600, "strict")]);
  };

  return new Elysia()
    // Registered before the routes: Elysia applies a hook to the routes that follow it. A refusal
    // while reading a form (too large, too slow, cut off) is the client's: its status and our own
    // sentence. Anything else is logged and answered with a page that says nothing of it.
    .onError(({ error, request }) => {
      const frame = frameFor(request, undefined, (t) => t("error.title"));
      if (error instanceof ApiError) return html(<NotFoundPage frame={frame} message={error.message} />, error.status, [], error.headers);
      deps.onUnexpectedError(error, contextOf(request).requestId);
      return html(<NotFoundPage frame={frame} message={frame.t("error.unexpected")} />, 500);
    })
    .get("/", ({ request }) => redirect(sessionOf(request) ? "/meetings" : "/login"))
    .get("/assets/app.css", () => new Response(stylesheet, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" } }))
    .get("/login", ({ request }) => (sessionOf(request) ? redirect("/meetings") : loginPage(request, 200)))
    .post("/login", async ({ request }) => {
      const form = await readFormBody(request);
      const t = translator(localeFor(request, undefined));
      if (!sameOrigin(request, deps.publicUrl()) || !sameSecret(form.get("_csrf") ?? undefined, cookie(request, FORM_COOKIE))) {
        return loginPage(request, 403, t("login.expired"));
      }
      const email = (form.get("email") ?? "").trim().toLowerCase().slice(0, 320);
      const password = form.get("password") ?? "";
      const address = contextOf(request).clientAddress();
      const now = deps.clock.now();
      const wait = deps.throttle.retryAfter(email, address, now);
      if (wait > 0) return loginPage(request, 429, t("login.throttled", { seconds: wait }), email);
      const user = findUserByEmail(deps.db, email);
      const ok = await verifyPassword(password, user ? passwordHashOf(deps.db, user.id) : null);
      if (!user || !ok) {
        deps.throttle.recordFailure(email, address, now);
        return loginPage(request, 401, t("login.failed"), email);
      }
      deps.throttle.recordSuccess(email);
      // A new token at every sign-in, and any session the browser brought is ended: a token planted
      // before sign-in (session fixation) never becomes a signed-in session.
      const previous = cookie(request, SESSION_COOKIE);
      if (previous) endWebSessionOfToken(deps.db, previous);
      const session = createWebSession(deps.db, user.id, now);
      return redirect("/meetings", [
        setCookie(request, deps.publicUrl(), SESSION_COOKIE, session.token, SESSION_MAX_MS / 1000, "lax"),
        setCookie(request, deps.publicUrl(), FORM_COOKIE, "", 0, "strict"),
      ]);
    })
    .post("/logout", async ({ request }) => {
      const form = await readFormBody(request);
      const session = sessionOf(request);
      if (!session) return redirect("/login");
      if (!sameOrigin(request, deps.publicUrl()) || !sameSecret(form.get("_csrf") ?? undefined, session.csrfToken)) {
        const frame = frameFor(request, session, (t) => t("forbidden.csrf"));
        return html(<NotFoundPage frame={frame} message={frame.t("forbidden.csrf")} />, 403);
      }
      endWebSession(deps.db, session.tokenHash);
      return redirect("/login", [setCookie(request, deps.publicUrl(), SESSION_COOKIE, "", 0, "lax")]);
    })
    .get("/meetings", ({ request }) => {
      const session = sessionOf(request);
      if (!session) return redirect("/login");
      const frame = frameFor(request, session, (t) => t("meetings.title"));
      const params = new URL(request.url).searchParams;
      const filters: MeetingFilters = {};
      for (const name of ["q", "client", "tag", "status", "recorded_after", "recorded_before"] as const) {
        const value = params.get(name)?.trim();
        if (value) filters[name] = value;
      }
      const day = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
      const parsed = listMeetingsQuery.safeParse({
        ...filters,
        tag: filters.tag ? [filters.tag] : undefined,
        recorded_after: day(filters.recorded_after),
        recorded_before: day(filters.recorded_before),
        starting_after: params.get("starting_after") ?? undefined,
      });
      if (!parsed.success) {
        const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
        return html(<MeetingsPage frame={frame} rows={[]} filters={filters} nextHref={null} error={frame.t("meetings.badFilter", { detail })} />, 400);
      }
      const page = listMeetings(deps.db, session.user.id, parsed.data, deps.publicApiUrl());
      const rows = page.data as unknown as MeetingRow[];
      let nextHref: string | null = null;
      if (page.has_more && page.next_cursor) {
        const next = new URLSearchParams(params);
        next.set("starting_after", page.next_cursor);
        nextHref = `/meetings?${next}`;
      }
      return html(<MeetingsPage frame={frame} rows={rows} filters={filters} nextHref={nextHref} />);
    })
    .all("*", ({ request }) => {
      const session = sessionOf(request);
      const frame = frameFor(request, session, (t) => t("notFound.title"));
      return html(<NotFoundPage frame={frame} message={frame.t("notFound.body")} />, 404);
    });
}

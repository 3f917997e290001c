import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import { render } from "preact-render-to-string";
import type { VNode } from "preact";
import { randomBase62 } from "../lib/ids.ts";
import type { Db } from "../db/client.ts";
import type { Clock } from "../lib/time.ts";
import { verifyPassword } from "../auth/passwords.ts";
import type { SignInThrottle } from "../auth/sign-in-throttle.ts";
import { findUserByEmail, localeOf, passwordHashOf } from "../auth/users.ts";
import { createWebSession, endWebSession, findWebSession, SESSION_MAX_MS, type WebSession } from "../auth/web-sessions.ts";
import { listMeetings } from "../meetings/query.ts";
import { listMeetingsQuery } from "../meetings/schema.ts";
import { contextOf } from "../http/request-context.ts";
import { readFormBody } from "./form-body.ts";
import { pickLocale, translator } from "./i18n.ts";
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
}

function html(page: VNode, status = 200, extra: Record<string, string> = {}, cookies: string[] = []): Response {
  const headers = new Headers({ ...securityHeaders(), "content-type": "text/html; charset=utf-8", ...extra });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(`<!doctype html>${render(page)}`, { status, headers });
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ ...securityHeaders(), location });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

function cookie(request: Request, name: string): string | undefined {
  return new Bun.CookieMap(request.headers.get("cookie") ?? "").get(name) ?? undefined;
}

function isSecure(request: Request): boolean {
  return new URL(request.url).protocol === "https:";
}

function setCookie(request: Request, name: string, value: string, maxAgeSeconds: number, sameSite: "lax" | "strict"): string {
  return new Bun.Cookie(name, value, { path: "/", httpOnly: true, sameSite, secure: isSecure(request), maxAge: maxAgeSeconds }).serialize();
}

/**
 * A state-changing form must come from this site: its hidden _csrf field matches the token the
 * server gave (the session's, or the sign-in form cookie's), and a browser's Origin header, when
 * sent, names this host.
 */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  return origin === new URL(request.url).origin;
}

function tokensMatch(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export function createWebApp(deps: WebDeps) {
  const frameFor = (request: Request, session: WebSession | undefined, title: (t: ReturnType<typeof translator>) => string): PageFrame => {
    const locale = pickLocale(session ? localeOf(deps.db, session.user.id) : null, request.headers.get("accept-language"));
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
    return html(<LoginPage frame={frame} formToken={formToken} error={error} email={email} />, status, {}, [setCookie(request, FORM_COOKIE, formToken, 3600, "strict")]);
  };

  return new Elysia()
    .get("/", ({ request }) => redirect(sessionOf(request) ? "/meetings" : "/login"))
    .get("/assets/app.css", () => new Response(stylesheet, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" } }))
    .get("/login", ({ request }) => (sessionOf(request) ? redirect("/meetings") : loginPage(request, 200)))
    .post("/login", async ({ request }) => {
      const form = await readFormBody(request);
      const t = frameFor(request, undefined, () => "").t;
      if (!sameOrigin(request) || !tokensMatch(form.get("_csrf") ?? undefined, cookie(request, FORM_COOKIE))) {
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
      const previousSession = previous ? findWebSession(deps.db, previous, now) : undefined;
      if (previousSession) endWebSession(deps.db, previousSession.tokenHash);
      const session = createWebSession(deps.db, user.id, now);
      return redirect("/meetings", [
        setCookie(request, SESSION_COOKIE, session.token, SESSION_MAX_MS / 1000, "lax"),
        setCookie(request, FORM_COOKIE, "", 0, "strict"),
      ]);
    })
    .post("/logout", async ({ request }) => {
      const form = await readFormBody(request);
      const session = sessionOf(request);
      if (!session) return redirect("/login");
      if (!sameOrigin(request) || !tokensMatch(form.get("_csrf") ?? undefined, session.csrfToken)) {
        const frame = frameFor(request, session, (t) => t("forbidden.csrf"));
        return html(<NotFoundPage frame={frame} message={frame.t("forbidden.csrf")} />, 403);
      }
      endWebSession(deps.db, session.tokenHash);
      return redirect("/login", [setCookie(request, SESSION_COOKIE, "", 0, "lax")]);
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

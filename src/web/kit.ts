import { webActor, type Actor } from "../auth/actor.ts";
import type { AuditApp } from "../audit/app.ts";
import type { AuthApp, OidcSignIn, PasswordAttemptOutcome, WebSession } from "../auth/app.ts";
import type { AdminApp } from "../admin/app.ts";
import type { ClientsApp } from "../clients/app.ts";
import type { RetentionApp } from "../retention/app.ts";
import type { SharingApp } from "../sharing/app.ts";
import type { UsageApp } from "../usage/app.ts";
import type { DocumentsApp } from "../documents/app.ts";
import type { ExportsApp } from "../exports/app.ts";
import type { MeetingsApp } from "../meetings/app.ts";
import type { OAuthApp } from "../oauth/app.ts";
import type { ReportsApp } from "../reports/app.ts";
import type { TemplatesApp } from "../templates/app.ts";
import type { TranscriptsApp } from "../transcripts/app.ts";
import { sameSecret } from "../lib/same-secret.ts";
import type { Clock } from "../lib/time.ts";
import type { WebhooksApp } from "../webhooks/app.ts";
import type { VocabularyApp } from "../vocabulary/app.ts";
import type { BillingSettings } from "../usage/app.ts";
import { clientAddressOf, contextOf } from "../http/request-context.ts";
import { anonymousClientKey } from "../http/client-key.ts";
import { readFormBody } from "./form-body.ts";
import { takeFormState } from "./form-state.ts";
import { cookie, sameOrigin } from "./http.ts";
import { pickLocale, translator, type MessageKey, type Translate } from "./i18n.ts";
import type { PageFrame, PageNotice } from "./layout.tsx";

export const SESSION_COOKIE = "verbatim_session";
/** Kept by a browser that signed in: its next password attempts skip a wait strangers caused (auth/known-browsers.ts). */
export const BROWSER_COOKIE = "verbatim_browser";
export const BROWSER_COOKIE_MAX_AGE_S = 180 * 24 * 3600;

/** The application layer the web app calls, the same use cases as the API's routes (service.ts builds them once). */
export interface WebApps {
  meetings: MeetingsApp;
  documents: DocumentsApp;
  transcripts: TranscriptsApp;
  reports: ReportsApp;
  exports: ExportsApp;
  templates: TemplatesApp;
  webhooks: WebhooksApp;
  auth: AuthApp;
  clients: ClientsApp;
  usage: UsageApp;
  /** The audit trail: the account's own activity (Settings → Activity). */
  audit: AuditApp;
  retention: RetentionApp;
  vocabulary: VocabularyApp;
  admin: AdminApp;
  /** The authorization server (issue 24): the consent page and Settings → Connected apps. */
  oauth: OAuthApp;
  /** Meetings shared with colleagues (issue 25 item 7): the web app's alone. */
  sharing: SharingApp;
}

/** What the web app's pages use: the same services as the API, handed over by the composition root. */
export interface WebDeps {
  apps: WebApps;
  clock: Clock;
  billing: BillingSettings;
  maxUploadBytes: number;
  /** Single sign-on with the firm's OpenID Connect provider, when configured. */
  sso: OidcSignIn | null;
  /** Active API keys one account may hold (--max-api-keys). */
  maxApiKeys: number;
  publicApiUrl(): string;
  /** The service's public URL (--public-url, else the listening address). */
  publicUrl(): string;
  /** A failure that is not the client's: logged with the request id, never shown. */
  onUnexpectedError(error: unknown, requestId: string): void;
}

/** A request that needs a signed-in user came without one: answered with the sign-in page. */
export class SignInRequired extends Error {}

/** A refusal shown as a page: its status and one sentence. */
export class PageRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type WebKit = ReturnType<typeof createWebKit>;

/** The web app's per-request helpers: who is signed in, in which language, and the CSRF check. */
export function createWebKit(deps: WebDeps) {
  const auth = deps.apps.auth;
  // The session of a request is read once, before any page runs (loadSession: the pipeline asks
  // first, to count the request against the user's window, then createWebApp's onRequest hook);
  // pages then read it synchronously (sessionOf).
  const loading = new WeakMap<Request, Promise<WebSession | undefined>>();
  const sessions = new WeakMap<Request, WebSession | null>();
  const loadSession = (request: Request): Promise<WebSession | undefined> => {
    let load = loading.get(request);
    if (!load) {
      const token = cookie(request, SESSION_COOKIE);
      load = (token ? auth.session(token) : Promise.resolve(undefined)).then((loaded) => {
        // Where this request came from, for the audit trail of what the session does (webActor).
        const session = loaded && { ...loaded, clientAddress: () => clientAddress(request) };
        sessions.set(request, session ?? null);
        return session;
      });
      loading.set(request, load);
    }
    return load;
  };
  /** The request's session, loaded before the page ran; undefined when signed out (or not loaded: a failure before any page). */
  const sessionOf = (request: Request): WebSession | undefined => sessions.get(request) ?? undefined;
  const frameFor = (request: Request, session: WebSession | undefined, title: (t: Translate) => string): PageFrame => {
    const locale = pickLocale(session?.locale ?? null, request.headers.get("accept-language"));
    const t = translator(locale);
    return { locale, t, title: title(t), csrfToken: session?.csrfToken, path: new URL(request.url).pathname, admin: session?.role === "admin", formState: takeFormState(request) };
  };
  const requireSession = (request: Request): WebSession => {
    const session = sessionOf(request);
    if (!session) throw new SignInRequired();
    return session;
  };
  /**
   * A state-changing request of a signed-in user: its CSRF token (the form's _csrf field, or the
   * X-CSRF-Token header of a script's request) matches the session's, and a browser's Origin
   * header names this site.
   */
  const assertCsrf = (request: Request, session: WebSession, sent: string | undefined) => {
    if (!sameOrigin(request, deps.publicUrl()) || !sameSecret(sent ?? request.headers.get("x-csrf-token") ?? undefined, session.csrfToken)) {
      throw new PageRefusal(403, translator(session.locale ?? "en")("forbidden.csrf"));
    }
  };
  const readForm = async (request: Request) => {
    const session = requireSession(request);
    const form = await readFormBody(request);
    assertCsrf(request, session, form.get("_csrf") ?? undefined);
    return { session, form };
  };
  /**
   * The notice a redirect after a form asked for (`?notice=saved`): only a key this page knows,
   * shown as our own sentence, never text from the URL.
   */
  const noticeOf = (request: Request, t: Translate, known: readonly string[], prefix = "notice."): PageNotice | undefined => {
    const key = new URL(request.url).searchParams.get("notice");
    return key !== null && known.includes(key) ? { text: t(`${prefix}${key}` as MessageKey) } : undefined;
  };
  /** The client's rate-limit key (its address, behind trusted proxies the one they name; IPv6 per /64). */
  const clientKey = (request: Request) => anonymousClientKey(contextOf(request).clientAddress());
  /** The client's address (behind trusted proxies the one they name), for the audit trail of a sign-in; null outside the pipeline. */
  const clientAddress = (request: Request): string | null => clientAddressOf(request)?.() ?? null;
  /** Who is acting, as the application layer's use cases take it. */
  const actor = (session: WebSession): Actor => webActor(session);
  return { deps, auth, loadSession, sessionOf, frameFor, requireSession, assertCsrf, readForm, actor, clientKey, clientAddress, noticeOf };
}

/** What a password attempt refused before its check shows: its message (a key, with its values), and the Retry-After header (seconds). */
export function attemptRefusal(outcome: Extract<PasswordAttemptOutcome, { kind: "throttled" | "busy" }>): { key: MessageKey; params?: Record<string, number>; headers: Record<string, string> } {
  if (outcome.kind === "busy") return { key: "login.busy", headers: { "retry-after": "1" } };
  const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
  return {
    ...(minutes === 1 ? { key: "login.throttledOneMinute" as const } : { key: "login.throttled" as const, params: { minutes } }),
    headers: { "retry-after": String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))) },
  };
}

import type { ClientsApp } from "../clients/app.ts";
import type { UsageApp } from "../usage/app.ts";
import type { OidcSignIn } from "../auth/oidc-sign-in.ts";
import type { Plan } from "../auth/plans.ts";
import { findWebSession, type WebSession } from "../auth/web-sessions.ts";
import type { Db } from "../db/client.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import type { LoadMeetingMaterial } from "../documents/material.ts";
import type { DraftLimits } from "../meetings/drafts.ts";
import type { RenderDocument } from "../documents/render-cache.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { sameSecret } from "../lib/same-secret.ts";
import type { Clock } from "../lib/time.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { DiskFloor } from "../storage/disk-space.ts";
import type { PingThrottle } from "../webhooks/ping.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import type { PasswordAttemptOutcome, PasswordAttempts } from "../auth/password-attempts.ts";
import type { UploadsInFlight } from "../uploads/in-flight.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { contextOf } from "../http/request-context.ts";
import { anonymousClientKey } from "../http/middleware/client-key/index.ts";
import { readFormBody } from "./form-body.ts";
import { cookie, sameOrigin } from "./http.ts";
import { pickLocale, translator, type MessageKey, type Translate } from "./i18n.ts";
import type { PageFrame, PageNotice } from "./layout.tsx";

export const SESSION_COOKIE = "verbatim_session";
/** Kept by a browser that signed in: its next password attempts skip a wait strangers caused (auth/known-browsers.ts). */
export const BROWSER_COOKIE = "verbatim_browser";
export const BROWSER_COOKIE_MAX_AGE_S = 180 * 24 * 3600;

/** What the web app's pages use: the same services as the API, handed over by the composition root. */
export interface WebDeps {
  db: Db;
  /** Truncates the database's WAL after a deletion (db/wal-truncation.ts). */
  wal: WalTruncation;
  clock: Clock;
  dataDir: string;
  /** Password checks (sign-in, the current password in Settings): throttled and bounded before Argon2 runs. */
  passwords: PasswordAttempts;
  slots: ParallelSlots;
  billing: BillingSettings;
  /** Application use cases (each domain's app.ts), built by the composition root. */
  clients: ClientsApp;
  usage: UsageApp;
  egress: EgressPolicy;
  minFreeDisk: DiskFloor;
  maxUploadBytes: number;
  /** Bounds on each account's drafts, and how long an untouched one is kept. */
  drafts: DraftLimits;
  uploads: UploadsInFlight;
  /** A recording's announced duration, reserved at admission (meetings/create.ts). */
  measureRecording(path: string): Promise<number | null>;
  templates: TemplateCatalogue;
  loadMaterial: LoadMeetingMaterial;
  render: RenderDocument;
  scheduler: { wake(): void; cancel(jobIds: string[]): void };
  /** The webhook delivery thread: told to send a ping now, or to look again. */
  webhooks: { sendNow(deliveryId: string): void; wake(): void };
  /** Test pings per endpoint, shared with the API's .../test. */
  pings: PingThrottle;
  /** Single sign-on with the firm's OpenID Connect provider, when configured. */
  sso: OidcSignIn | null;
  /** Active API keys one account may hold (--max-api-keys). */
  maxApiKeys: number;
  /** An API key was created or revoked here: the API's cached key lookups must not outlive it. */
  onApiKeysChanged(): void;
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
  // The session of a request is read once: the pipeline reads it first to count the request
  // against the user's window (signedInUserOf in routes.tsx), then the page.
  const sessions = new WeakMap<Request, WebSession | null>();
  const sessionOf = (request: Request): WebSession | undefined => {
    const known = sessions.get(request);
    if (known !== undefined) return known ?? undefined;
    const token = cookie(request, SESSION_COOKIE);
    const session = token ? findWebSession(deps.db, token, deps.clock.now()) : undefined;
    sessions.set(request, session ?? null);
    return session;
  };
  const frameFor = (request: Request, session: WebSession | undefined, title: (t: Translate) => string): PageFrame => {
    const locale = pickLocale(session?.locale ?? null, request.headers.get("accept-language"));
    const t = translator(locale);
    return { locale, t, title: title(t), csrfToken: session?.csrfToken, path: new URL(request.url).pathname };
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
  const account = (session: WebSession): { userId: string; plan: Plan } => ({ userId: session.user.id, plan: session.user.plan });
  return { deps, sessionOf, frameFor, requireSession, assertCsrf, readForm, account, clientKey, noticeOf };
}

/** What a password attempt refused before its check shows: the sentence, and the Retry-After header (seconds). */
export function attemptRefusal(t: Translate, outcome: Extract<PasswordAttemptOutcome, { kind: "throttled" | "busy" }>): { text: string; headers: Record<string, string> } {
  if (outcome.kind === "busy") return { text: t("login.busy"), headers: { "retry-after": "1" } };
  const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
  return {
    text: minutes === 1 ? t("login.throttledOneMinute") : t("login.throttled", { minutes }),
    headers: { "retry-after": String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))) },
  };
}

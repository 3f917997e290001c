import type { OidcSignIn } from "../auth/oidc-sign-in.ts";
import type { Plan } from "../auth/plans.ts";
import { findWebSession, type WebSession } from "../auth/web-sessions.ts";
import type { Db } from "../db/client.ts";
import type { LoadMeetingMaterial } from "../documents/material.ts";
import type { RenderDocument } from "../documents/render-cache.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { sameSecret } from "../lib/same-secret.ts";
import type { Clock } from "../lib/time.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { DiskFloor } from "../storage/disk-space.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import type { SignInThrottle } from "../auth/sign-in-throttle.ts";
import type { UploadsInFlight } from "../uploads/in-flight.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { contextOf } from "../http/request-context.ts";
import { readFormBody } from "./form-body.ts";
import { cookie, sameOrigin } from "./http.ts";
import { pickLocale, translator, type MessageKey, type Translate } from "./i18n.ts";
import type { PageFrame, PageNotice } from "./layout.tsx";

export const SESSION_COOKIE = "verbatim_session";

/** What the web app's pages use: the same services as the API, handed over by the composition root. */
export interface WebDeps {
  db: Db;
  clock: Clock;
  dataDir: string;
  throttle: SignInThrottle;
  slots: ParallelSlots;
  billing: BillingSettings;
  egress: EgressPolicy;
  minFreeDisk: DiskFloor;
  maxUploadBytes: number;
  uploads: UploadsInFlight;
  /** A recording's announced duration, reserved at admission (meetings/create.ts). */
  measureRecording(path: string): Promise<number | null>;
  templates: TemplateCatalogue;
  loadMaterial: LoadMeetingMaterial;
  render: RenderDocument;
  scheduler: { wake(): void; cancel(jobIds: string[]): void };
  /** The webhook delivery thread: told to send a ping now, or to look again. */
  webhooks: { sendNow(deliveryId: string): void; wake(): void };
  /** Single sign-on with the firm's OpenID Connect provider, when configured. */
  sso: OidcSignIn | null;
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
  const sessionOf = (request: Request): WebSession | undefined => {
    const token = cookie(request, SESSION_COOKIE);
    return token ? findWebSession(deps.db, token, deps.clock.now()) : undefined;
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
  const clientAddress = (request: Request) => contextOf(request).clientAddress();
  const account = (session: WebSession): { userId: string; plan: Plan } => ({ userId: session.user.id, plan: session.user.plan });
  return { deps, sessionOf, frameFor, requireSession, assertCsrf, readForm, account, clientAddress, noticeOf };
}

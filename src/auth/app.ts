import { createHash } from "node:crypto";
import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_ACCOUNT, NO_AUDIT_TRAIL, type AuditDetail, type AuditTrail } from "../audit/types.ts";
import { withTx, type DbConn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Clock } from "../lib/time.ts";
import { webActor, type Actor } from "./actor.ts";
import { DEFAULT_MAX_ACTIVE_API_KEYS, type ApiKeyRow } from "./api-keys.ts";
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from "./api-key-store.ts";
import { userForIdpToken } from "./external-identity-store.ts";
import type { OidcSignIn } from "./oidc-sign-in.ts";
import type { PasswordAttempts } from "./password-attempts.ts";
import { hashPassword, passwordProblem } from "./passwords.ts";
import type { Scope } from "./scopes.ts";
import type { Locale } from "./users.ts";
import { getUserByEmail, getUserById, passwordHashOf, setPasswordHash, setUserLocale, userIsActive } from "./user-store.ts";
import { consumeSignInLink, peekSignInLink } from "./sign-in-link-store.ts";
import type { WebSession } from "./web-sessions.ts";
import { createWebSession, endAllWebSessions, endWebSession, endWebSessionOfToken, findWebSession } from "./web-session-store.ts";

// What the front ends need of auth/ beside the use cases: refusals to tell apart, names, bounds.
export { ApiKeyLimitReached, apiKeyHint, type ApiKeyRow } from "./api-keys.ts";
export { SsoRefused, type OidcSignIn } from "./oidc-sign-in.ts";
export type { PasswordAttemptOutcome, PasswordAttempts } from "./password-attempts.ts";
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";
export { isScope, SCOPES, type Scope } from "./scopes.ts";
export type { Locale } from "./users.ts";
export type { Plan } from "./plans.ts";
export { SESSION_MAX_MS, type WebSession } from "./web-sessions.ts";

/**
 * The accounts' use cases: API keys, signing in and out of the web app, passwords and the
 * web app's language. The web pages (and later the API and the MCP server) call these; each does
 * its checks and its transaction, and tells the API's key cache when keys changed.
 */
export interface AuthDeps {
  conn: DbConn;
  clock: Clock;
  /** Password checks: throttled and bounded before Argon2 runs (sign-in, the current password in Settings). */
  passwords: PasswordAttempts;
  /** Single sign-on with the firm's OpenID Connect provider, when configured. */
  sso: OidcSignIn | null;
  /** Active API keys one account may hold (--max-api-keys). */
  maxApiKeys?: number;
  /** Keys were created or revoked on this process's connection: the API's cached key lookups must not outlive it. */
  onApiKeysChanged(): void;
  /** Where sign-ins, sign-outs, password changes and keys are recorded (audit/trail.ts). */
  audit?: AuditTrail;
}

/**
 * A failed sign-in's address, for correlating repeated attempts without keeping the address: the
 * first 16 hex digits of its SHA-256 (a dictionary of addresses could still find it: docs/decisions.md).
 */
function addressHash(email: string): string {
  return createHash("sha256").update(email).digest("hex").slice(0, 16);
}

/** A password check refused before its verification ran: try again after a wait. */
export type PasswordRefusal = { kind: "throttled"; retryAfterMs: number } | { kind: "busy" };

/** A browser signed in: the session token for its cookie. */
export interface SignedIn {
  kind: "signed_in";
  sessionToken: string;
}

export type PasswordSignIn = PasswordRefusal | { kind: "wrong" } | (SignedIn & { browserToken: string });

export type SsoSignIn = { kind: "unknown_person"; returnTo: string } | (SignedIn & { returnTo: string });

export type PasswordChange = PasswordRefusal | { kind: "wrong_current" } | { kind: "weak" } | (SignedIn & { browserToken: string });

export type AuthApp = ReturnType<typeof authApp>;

export function authApp(deps: AuthDeps) {
  const { conn, clock } = deps;
  const audit = deps.audit ?? NO_AUDIT_TRAIL;

  /** A browser that proved who it is: recorded with the new session's id hash. */
  const signedIn = (userId: string, tokenHash: string, clientAddress: string | null | undefined, method: "password" | "oidc") =>
    audit.record({
      accountId: userId,
      actorUserId: userId,
      credentialType: "web_session",
      credentialId: tokenHash,
      channel: "webapp",
      action: AUDIT_ACTIONS.signIn,
      resourceType: "user",
      resourceId: userId,
      clientAddress: clientAddress ?? null,
      detail: { method },
    });

  /** A sign-in refused after its check: the account's when one was named, else NO_ACCOUNT; nobody proved who acted. */
  const signInFailed = (userId: string | null, clientAddress: string | null | undefined, detail: AuditDetail) =>
    audit.record({
      accountId: userId ?? NO_ACCOUNT,
      actorUserId: null,
      credentialType: "web_session",
      credentialId: null,
      channel: "webapp",
      action: AUDIT_ACTIONS.signInFailed,
      resourceType: userId ? "user" : null,
      resourceId: userId,
      clientAddress: clientAddress ?? null,
      detail,
    });

  /** A new session for a user who proved who they are; any session the browser brought is ended (fixation). */
  const startSession = async (userId: string, now: number, replacing: string | undefined, from: { clientAddress?: string | null; method: "password" | "oidc" }): Promise<SignedIn> => {
    const signed = await withTx(conn, async (tx): Promise<SignedIn & { tokenHash: string }> => {
      if (replacing) await endWebSessionOfToken(tx, replacing);
      const { token, tokenHash } = await createWebSession(tx, userId, now);
      return { kind: "signed_in", sessionToken: token, tokenHash };
    });
    await signedIn(userId, signed.tokenHash, from.clientAddress, from.method);
    return { kind: "signed_in", sessionToken: signed.sessionToken };
  };

  const keys = {
    /**
     * Creates an API key for the actor's account; its plaintext comes back once and is never
     * stored. Refused with ApiKeyLimitReached when the account holds its most active keys.
     */
    async create(actor: Actor, input: { name: string; scopes: Scope[] }): Promise<{ row: ApiKeyRow; key: string }> {
      const created = await createApiKey(conn, { userId: actor.account.userId, ...input }, clock.now(), deps.maxApiKeys ?? DEFAULT_MAX_ACTIVE_API_KEYS);
      deps.onApiKeysChanged();
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.apiKeyCreated, { type: "api_key", id: created.row.id }, { scopes: input.scopes.join(" ") }));
      return created;
    },

    /** The account's keys, revoked ones included, oldest first (never the keys themselves). */
    list(actor: Actor): Promise<ApiKeyRow[]> {
      return listApiKeys(conn, actor.account.userId);
    },

    /** Revokes one of the account's keys (already revoked: nothing changes); another account's key is not found. */
    async revoke(actor: Actor, keyId: string): Promise<void> {
      const key = await getApiKey(conn, keyId);
      if (!key || key.userId !== actor.account.userId) throw ApiError.notFound("The API key");
      await revokeApiKey(conn, keyId, clock.now());
      deps.onApiKeysChanged();
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.apiKeyRevoked, { type: "api_key", id: key.id }));
    },
  };

  return {
    keys,

    /** The live web session a cookie token names, or undefined. */
    session(token: string): Promise<WebSession | undefined> {
      return findWebSession(conn, token, clock.now());
    },

    /**
     * Signs a person in with email and password: the throttle and the bounded verifications
     * first, the same time spent for an unknown email; a match starts a session, ending the one
     * the browser brought (`replacing`, its cookie token).
     */
    async signInWithPassword(input: { email: string; password: string; clientKey: string; browserToken?: string; replacing?: string; clientAddress?: string | null }): Promise<PasswordSignIn> {
      const email = input.email.trim().toLowerCase().slice(0, 320);
      const user = await getUserByEmail(conn, email);
      const hash = user ? await passwordHashOf(conn, user.id) : null;
      const outcome = await deps.passwords.check(email, input.clientKey, input.password, hash, input.browserToken);
      if (outcome.kind === "throttled" || outcome.kind === "busy") return outcome;
      if (!user || outcome.kind !== "matched") {
        // Checked and refused (a refusal before the check, throttled or busy, is the throttle's, not the trail's).
        await signInFailed(user?.id ?? null, input.clientAddress, user ? { method: "password", reason: "wrong_password" } : { method: "password", reason: "unknown_address", address_sha256: addressHash(email) });
        return { kind: "wrong" };
      }
      // A disabled account is told nothing more than a wrong password would be (the trail says why).
      if (!(await userIsActive(conn, user.id))) {
        await signInFailed(user.id, input.clientAddress, { method: "password", reason: "disabled" });
        return { kind: "wrong" };
      }
      return { ...(await startSession(user.id, clock.now(), input.replacing, { clientAddress: input.clientAddress, method: "password" })), browserToken: outcome.browserToken };
    },

    /** Where to send the browser to sign in with the identity provider, and the state its cookie carries back. */
    startSso(callbackUrl: string, returnTo: string, clientKey: string): Promise<{ url: string; state: string }> {
      if (!deps.sso) throw ApiError.notFound("Single sign-on");
      return deps.sso.start(callbackUrl, returnTo, clientKey);
    },

    /**
     * The provider's answer on the callback: the person it signed in, mapped to a user as the
     * API maps the provider's tokens (auth/external-identity-store.ts), gets a session. SsoRefused
     * when the provider's answer is refused.
     */
    async finishSso(
      answer: { state: string | null; cookieState: string | undefined; code: string | null; error: string | null },
      callbackUrl: string,
      replacing: string | undefined,
      clientAddress?: string | null,
    ): Promise<SsoSignIn> {
      if (!deps.sso) throw ApiError.notFound("Single sign-on");
      const { person, returnTo } = await deps.sso.finish(answer, callbackUrl).catch(async (error: unknown) => {
        await signInFailed(null, clientAddress, { method: "oidc", reason: "refused" });
        throw error;
      });
      const now = clock.now();
      const mapped = await userForIdpToken(conn, person, now);
      if ("refused" in mapped) {
        await signInFailed(null, clientAddress, { method: "oidc", reason: "unknown_person" });
        return { kind: "unknown_person", returnTo };
      }
      return { ...(await startSession(mapped.user.id, now, replacing, { clientAddress, method: "oidc" })), returnTo };
    },

    /**
     * One-time sign-in links an administrator gave (admin/app.ts makes them): `peek` names the
     * account a live link is for (its page asks for a password), `use` spends it once: the new
     * password replaces any earlier one, every other session ends, and this browser is signed in.
     */
    signInLink: {
      async peek(token: string): Promise<{ email: string } | undefined> {
        const userId = await peekSignInLink(conn, token, clock.now());
        const user = userId && (await userIsActive(conn, userId)) ? await getUserById(conn, userId) : undefined;
        return user ? { email: user.email } : undefined;
      },

      async use(input: { token: string; password: string; replacing?: string }): Promise<SignedIn | { kind: "invalid" } | { kind: "weak" }> {
        // A weak password leaves the link unused, so the person can try another.
        if (passwordProblem(input.password)) return { kind: "weak" };
        const hash = await hashPassword(input.password);
        const now = clock.now();
        return withTx(conn, async (tx) => {
          const userId = await consumeSignInLink(tx, input.token, now);
          if (!userId || !(await userIsActive(tx, userId))) return { kind: "invalid" as const };
          await setPasswordHash(tx, userId, hash);
          await endAllWebSessions(tx, userId);
          if (input.replacing) await endWebSessionOfToken(tx, input.replacing);
          const { token } = await createWebSession(tx, userId, now);
          return { kind: "signed_in" as const, sessionToken: token };
        });
      },
    },

    /** Ends this browser's session. */
    async signOut(session: WebSession): Promise<void> {
      await endWebSession(conn, session.tokenHash);
      await audit.record(actorEntry(webActor(session), AUDIT_ACTIONS.signOut, { type: "user", id: session.user.id }));
    },

    /** Ends every session of the actor's account (every browser, every device). */
    async signOutEverywhere(actor: Actor): Promise<void> {
      await endAllWebSessions(conn, actor.account.userId);
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.signOut, { type: "user", id: actor.account.userId }, { everywhere: true }));
    },

    /**
     * Changes the web app password. Guessing the current password here is a sign-in attempt: the
     * same throttle and bounds count it. A new password ends every session, elsewhere and here;
     * the browser gets a fresh one.
     */
    async changePassword(actor: Actor, input: { current: string; password: string; clientKey: string; browserToken?: string }): Promise<PasswordChange> {
      const userId = actor.account.userId;
      const user = await getUserById(conn, userId);
      if (!user) throw ApiError.notFound("The account");
      const outcome = await deps.passwords.check(user.email, input.clientKey, input.current, await passwordHashOf(conn, userId), input.browserToken);
      if (outcome.kind === "throttled" || outcome.kind === "busy") return outcome;
      if (outcome.kind !== "matched") return { kind: "wrong_current" };
      const now = clock.now();
      if (passwordProblem(input.password)) return { kind: "weak" };
      const hash = await hashPassword(input.password);
      const fresh = await withTx(conn, async (tx) => {
        await setPasswordHash(tx, userId, hash);
        await endAllWebSessions(tx, userId);
        return createWebSession(tx, userId, now);
      });
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.passwordChanged, { type: "user", id: userId }));
      return { kind: "signed_in", sessionToken: fresh.token, browserToken: outcome.browserToken };
    },

    /** The web app's language for the actor's account; null follows the browser's. */
    setLocale(actor: Actor, locale: Locale | null): Promise<void> {
      return setUserLocale(conn, actor.account.userId, locale);
    },
  };
}

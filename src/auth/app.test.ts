// The accounts' use cases (auth/app.ts), called directly against a migrated database: no HTTP.
import { afterAll, describe, expect, test } from "bun:test";
import { tempDatabase } from "../../test/support/database.ts";
import { ApiError } from "../errors/api-error.ts";
import { webActor, type Actor } from "./actor.ts";
import { ApiKeyLimitReached } from "./api-keys.ts";
import { createApiKeyLookup } from "./api-key-store.ts";
import { authApp, type AuthDeps } from "./app.ts";
import type { OidcSignIn } from "./oidc-sign-in.ts";
import { PasswordAttempts } from "./password-attempts.ts";
import { PasswordVerifications } from "./password-verifications.ts";
import { hashPassword } from "./passwords.ts";
import { SignInThrottle } from "./sign-in-throttle.ts";
import { SsoRefused } from "./sso-refused.ts";
import { addUser, getUserById, setPasswordHash } from "./user-store.ts";
import type { WebSession } from "./web-sessions.ts";

const database = tempDatabase("auth-app");
afterAll(() => database.remove());
const conn = database.conn;

let now = 1_700_000_000_000;
const clock = { now: () => now };
let keysChanged = 0;
const PASSWORD = "correct horse battery";

function app(extra: Partial<AuthDeps> = {}) {
  return authApp({
    conn,
    clock,
    passwords: new PasswordAttempts(new SignInThrottle(), new PasswordVerifications(), clock),
    sso: null,
    maxApiKeys: 2,
    onApiKeysChanged: () => keysChanged++,
    ...extra,
  });
}

async function person(email: string, password: string | null = PASSWORD) {
  const user = await addUser(conn, { email, plan: "standard" }, now);
  if (password) await setPasswordHash(conn, user.id, await hashPassword(password));
  return user;
}

function apiActorOf(userId: string): Actor {
  return { account: { userId, plan: "standard" }, channel: "api", credential: { type: "api_key", id: "key_x", name: "k", scopes: [], expiresAt: null } };
}

async function sessionOf(auth: ReturnType<typeof app>, token: string): Promise<WebSession> {
  const session = await auth.session(token);
  if (!session) throw new Error("no session");
  return session;
}

describe("keys", () => {
  test("create answers the plaintext once and tells the API's key cache; list shows the account's keys only", async () => {
    const auth = app();
    const ana = await person("keys-ana@firm.example", null);
    const ben = await person("keys-ben@firm.example", null);
    const before = keysChanged;
    const { row, key } = await auth.keys.create(apiActorOf(ana.id), { name: "ci", scopes: ["read:meetings"] });
    expect(keysChanged).toBe(before + 1);
    expect(key.startsWith("vb_live_")).toBe(true);
    expect(row).toMatchObject({ userId: ana.id, name: "ci", scopes: ["read:meetings"], revokedAt: null });
    expect((await auth.keys.list(apiActorOf(ana.id))).map((k) => k.id)).toEqual([row.id]);
    expect(await auth.keys.list(apiActorOf(ben.id))).toEqual([]);
    expect((await createApiKeyLookup(conn).find(key))?.user.id).toBe(ana.id);
  });

  test("create is refused at the account's most active keys; a revoked key frees its place", async () => {
    const auth = app();
    const cy = await person("keys-cy@firm.example", null);
    const actor = apiActorOf(cy.id);
    const first = await auth.keys.create(actor, { name: "1", scopes: ["webhooks"] });
    await auth.keys.create(actor, { name: "2", scopes: ["webhooks"] });
    await expect(auth.keys.create(actor, { name: "3", scopes: ["webhooks"] })).rejects.toThrow(ApiKeyLimitReached);
    expect(await auth.keys.list(actor)).toHaveLength(2);
    await auth.keys.revoke(actor, first.row.id);
    await auth.keys.create(actor, { name: "3", scopes: ["webhooks"] });
    expect((await auth.keys.list(actor)).map((k) => [k.name, k.revokedAt === null])).toEqual([
      ["1", false],
      ["2", true],
      ["3", true],
    ]);
  });

  test("revoke: another account's key is not found and stays active; revoking twice changes nothing", async () => {
    const auth = app();
    const dee = await person("keys-dee@firm.example", null);
    const eve = await person("keys-eve@firm.example", null);
    const { row, key } = await auth.keys.create(apiActorOf(dee.id), { name: "k", scopes: ["read:usage"] });
    const before = keysChanged;
    await expect(auth.keys.revoke(apiActorOf(eve.id), row.id)).rejects.toThrow(ApiError);
    await expect(auth.keys.revoke(apiActorOf(eve.id), "key_unknown")).rejects.toMatchObject({ status: 404 });
    expect(keysChanged).toBe(before);
    now += 1000;
    await auth.keys.revoke(apiActorOf(dee.id), row.id);
    expect(keysChanged).toBe(before + 1);
    const [revoked] = await auth.keys.list(apiActorOf(dee.id));
    expect(revoked!.revokedAt).toBe(now);
    now += 1000;
    await auth.keys.revoke(apiActorOf(dee.id), row.id);
    expect((await auth.keys.list(apiActorOf(dee.id)))[0]!.revokedAt).toBe(now - 1000);
    expect((await createApiKeyLookup(conn).find(key))?.key.revokedAt).not.toBeNull();
  });
});

describe("signing in and out", () => {
  test("a wrong password or an unknown email is refused alike; the right one starts a session", async () => {
    const auth = app();
    const fay = await person("sign-fay@firm.example");
    expect(await auth.signInWithPassword({ email: "sign-fay@firm.example", password: "wrong password!", clientKey: "a" })).toEqual({ kind: "wrong" });
    expect(await auth.signInWithPassword({ email: "nobody@firm.example", password: PASSWORD, clientKey: "a" })).toEqual({ kind: "wrong" });
    const signed = await auth.signInWithPassword({ email: "  SIGN-Fay@firm.example ", password: PASSWORD, clientKey: "b" });
    if (signed.kind !== "signed_in") throw new Error(signed.kind);
    expect(signed.browserToken).toBeString();
    const session = await sessionOf(auth, signed.sessionToken);
    expect(session.user.id).toBe(fay.id);
    expect(webActor(session)).toEqual({ account: { userId: fay.id, plan: "standard" }, channel: "webapp", credential: { type: "web_session", id: session.tokenHash } });
  });

  test("a user without a password cannot sign in with one", async () => {
    await person("sign-nopass@firm.example", null);
    expect(await app().signInWithPassword({ email: "sign-nopass@firm.example", password: PASSWORD, clientKey: "c" })).toEqual({ kind: "wrong" });
  });

  test("signing in ends the session the browser brought (fixation); signing out ends this one", async () => {
    const auth = app();
    await person("sign-gus@firm.example");
    const first = await auth.signInWithPassword({ email: "sign-gus@firm.example", password: PASSWORD, clientKey: "d" });
    if (first.kind !== "signed_in") throw new Error(first.kind);
    const second = await auth.signInWithPassword({ email: "sign-gus@firm.example", password: PASSWORD, clientKey: "d", replacing: first.sessionToken });
    if (second.kind !== "signed_in") throw new Error(second.kind);
    expect(await auth.session(first.sessionToken)).toBeUndefined();
    const session = await sessionOf(auth, second.sessionToken);
    await auth.signOut(session);
    expect(await auth.session(second.sessionToken)).toBeUndefined();
  });

  test("repeated failures are throttled before any verification", async () => {
    const auth = app();
    await person("sign-hal@firm.example");
    let outcome;
    for (let i = 0; i < 20; i++) {
      outcome = await auth.signInWithPassword({ email: "sign-hal@firm.example", password: `wrong password ${i}`, clientKey: "e" });
      if (outcome.kind === "throttled") break;
    }
    expect(outcome).toMatchObject({ kind: "throttled", retryAfterMs: expect.any(Number) });
  });

  test("sign out everywhere ends every session of the account and no other's", async () => {
    const auth = app();
    const ivy = await person("sign-ivy@firm.example");
    await person("sign-jon@firm.example");
    const tokens = [];
    for (const who of ["sign-ivy@firm.example", "sign-ivy@firm.example", "sign-jon@firm.example"]) {
      const signed = await auth.signInWithPassword({ email: who, password: PASSWORD, clientKey: `f-${tokens.length}` });
      if (signed.kind !== "signed_in") throw new Error(signed.kind);
      tokens.push(signed.sessionToken);
    }
    await auth.signOutEverywhere(webActor(await sessionOf(auth, tokens[0]!)));
    expect(await auth.session(tokens[0]!)).toBeUndefined();
    expect(await auth.session(tokens[1]!)).toBeUndefined();
    expect((await auth.session(tokens[2]!))?.user.email).toBe("sign-jon@firm.example");
    expect((await getUserById(conn, ivy.id))?.email).toBe("sign-ivy@firm.example");
  });
});

describe("single sign-on", () => {
  const answer = { state: "s", cookieState: "s", code: "c", error: null };
  const fakeSso = (finish: OidcSignIn["finish"]) =>
    ({ name: "Firm", start: async () => ({ url: "https://idp.example/auth", state: "s" }), finish }) as unknown as OidcSignIn;

  test("a verified email of a user signs in and links the identity; an unknown person is refused with where to return", async () => {
    const kim = await person("sso-kim@firm.example", null);
    let email = "sso-kim@firm.example";
    const auth = app({
      sso: fakeSso(async () => ({ person: { issuer: "https://idp.example", subject: `sub-${email}`, email, emailVerified: true }, returnTo: "/meetings/x" })),
    });
    const signed = await auth.finishSso(answer, "https://verbatim.example/login/sso/callback", undefined);
    if (signed.kind !== "signed_in") throw new Error(signed.kind);
    expect(signed.returnTo).toBe("/meetings/x");
    expect((await sessionOf(auth, signed.sessionToken)).user.id).toBe(kim.id);
    email = "stranger@firm.example";
    expect(await auth.finishSso(answer, "https://verbatim.example/login/sso/callback", undefined)).toEqual({ kind: "unknown_person", returnTo: "/meetings/x" });
  });

  test("the provider's refusal passes through; without SSO configured there is none", async () => {
    const auth = app({ sso: fakeSso(async () => Promise.reject(new SsoRefused("The sign-in expired."))) });
    await expect(auth.finishSso(answer, "cb", undefined)).rejects.toThrow(SsoRefused);
    await expect(app().finishSso(answer, "cb", undefined)).rejects.toMatchObject({ status: 404 });
    expect(() => app().startSso("cb", "/meetings", "k")).toThrow(ApiError);
    expect(await auth.startSso("cb", "/meetings", "k")).toEqual({ url: "https://idp.example/auth", state: "s" });
  });
});

describe("password and language", () => {
  test("a wrong current password or a weak new one changes nothing; a change ends every session and starts a fresh one", async () => {
    const auth = app();
    await person("pw-lou@firm.example");
    const signIn = async (password: string, clientKey: string) => auth.signInWithPassword({ email: "pw-lou@firm.example", password, clientKey });
    const a = await signIn(PASSWORD, "g1");
    const b = await signIn(PASSWORD, "g2");
    if (a.kind !== "signed_in" || b.kind !== "signed_in") throw new Error("not signed in");
    const actor = webActor(await sessionOf(auth, a.sessionToken));
    expect(await auth.changePassword(actor, { current: "not the password", password: "a new long password", clientKey: "g3" })).toEqual({ kind: "wrong_current" });
    expect(await auth.changePassword(actor, { current: PASSWORD, password: "short", clientKey: "g4" })).toEqual({ kind: "weak" });
    expect(await auth.session(a.sessionToken)).toBeDefined();
    const changed = await auth.changePassword(actor, { current: PASSWORD, password: "a new long password", clientKey: "g5" });
    if (changed.kind !== "signed_in") throw new Error(changed.kind);
    expect(await auth.session(a.sessionToken)).toBeUndefined();
    expect(await auth.session(b.sessionToken)).toBeUndefined();
    expect((await sessionOf(auth, changed.sessionToken)).user.email).toBe("pw-lou@firm.example");
    expect((await signIn(PASSWORD, "g6")).kind).toBe("wrong");
    expect((await signIn("a new long password", "g7")).kind).toBe("signed_in");
  });

  test("the language is the account's, read with its sessions; null follows the browser", async () => {
    const auth = app();
    await person("lang-max@firm.example");
    const signed = await auth.signInWithPassword({ email: "lang-max@firm.example", password: PASSWORD, clientKey: "h" });
    if (signed.kind !== "signed_in") throw new Error(signed.kind);
    const actor = webActor(await sessionOf(auth, signed.sessionToken));
    expect((await sessionOf(auth, signed.sessionToken)).locale).toBeNull();
    await auth.setLocale(actor, "fr");
    expect((await sessionOf(auth, signed.sessionToken)).locale).toBe("fr");
    await auth.setLocale(actor, null);
    expect((await sessionOf(auth, signed.sessionToken)).locale).toBeNull();
  });
});

// Single sign-on with the firm's OpenID Connect provider (issue 14), against a provider on
// loopback: the code flow with PKCE (S256), state tied to the browser, nonce checked in a signed ID
// token, the person mapped to a user by verified email; every refusal is a sign-in page, never a
// session.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { get as httpGet } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);

const CLIENT_ID = "verbatim-web";
const CLIENT_SECRET = "provider-issued-secret";
let server: TestServer;
let idp: ReturnType<typeof Bun.serve>;
let issuer = "";
/** What the provider saw and how it answers next. */
const seen: { authorize?: URLSearchParams; token?: URLSearchParams; tokenAuth?: string | null } = {};
/** How the UserInfo endpoint answers. */
type UserInfoAnswer = "json" | "jwt" | "jwt-foreign-key" | "jwt-other-audience" | "jwe" | "json-other-sub" | "too-large";
const next: {
  email: string;
  emailVerified: boolean;
  nonce?: string;
  /** Where the email goes: the ID token (default), or only the UserInfo endpoint, answering as said. */
  userInfo?: UserInfoAnswer;
} = { email: "sso@firm.example", emailVerified: true };
/** The provider's access token for a person. */
const accessTokenOf = (email: string) => `at-${Buffer.from(email).toString("base64url")}`;
/** The Authorization header of each UserInfo request. */
const userInfoAuth: (string | null)[] = [];
const codes = new Map<string, { challenge: string; nonce: string; redirectUri: string }>();

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const foreignKey = (await generateKeyPair("RS256")).privateKey;
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  idp = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/.well-known/openid-configuration") {
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          userinfo_endpoint: `${issuer}/userinfo`,
        });
      }
      if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
      if (url.pathname === "/authorize") {
        seen.authorize = url.searchParams;
        const code = crypto.randomUUID();
        codes.set(code, { challenge: url.searchParams.get("code_challenge")!, nonce: url.searchParams.get("nonce")!, redirectUri: url.searchParams.get("redirect_uri")! });
        return Response.redirect(`${url.searchParams.get("redirect_uri")}?code=${code}&state=${url.searchParams.get("state")}`, 302);
      }
      if (url.pathname === "/token" && request.method === "POST") {
        const form = new URLSearchParams(await request.text());
        seen.token = form;
        seen.tokenAuth = request.headers.get("authorization");
        const grant = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifierHash = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
        const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
        if (!grant || grant.challenge !== verifierHash || grant.redirectUri !== form.get("redirect_uri") || request.headers.get("authorization") !== basic) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
        const emailClaims = next.userInfo ? {} : { email: next.email, email_verified: next.emailVerified };
        const idToken = await new SignJWT({ nonce: next.nonce ?? grant.nonce, ...emailClaims })
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer(issuer)
          .setAudience(CLIENT_ID)
          .setSubject(`idp-user-${next.email}`)
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(privateKey);
        return Response.json({ access_token: accessTokenOf(next.email), token_type: "Bearer", id_token: idToken });
      }
      if (url.pathname === "/userinfo") {
        userInfoAuth.push(request.headers.get("authorization"));
        if (request.headers.get("authorization") !== `Bearer ${accessTokenOf(next.email)}`) return new Response(null, { status: 401 });
        const claims = { sub: `idp-user-${next.email}`, email: next.email, email_verified: next.emailVerified };
        const signed = (key: CryptoKey, audience = CLIENT_ID) =>
          new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuer(issuer).setAudience(audience).sign(key);
        const jwt = (body: string) => new Response(body, { headers: { "content-type": "application/jwt" } });
        switch (next.userInfo) {
          case "jwt":
            return jwt(await signed(privateKey));
          case "jwt-foreign-key":
            return jwt(await signed(foreignKey));
          case "jwt-other-audience":
            return jwt(await signed(privateKey, "another-client"));
          case "jwe":
            return jwt("eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a2V5.aXY.Y2lwaGVydGV4dA.dGFn");
          case "json-other-sub":
            return Response.json({ ...claims, sub: "idp-user-someone-else" });
          case "too-large":
            return Response.json({ ...claims, padding: "x".repeat(200_000) });
          default:
            return Response.json(claims);
        }
      }
      return new Response("not found", { status: 404 });
    },
  });
  issuer = `http://127.0.0.1:${idp.port}`;
  server = await startServer({
    args: ["--egress-allow", "127.0.0.1", "--sso-issuer", issuer, "--sso-client-id", CLIENT_ID, "--sso-name", "Firm SSO"],
    env: { VERBATIM_SSO_CLIENT_SECRET: CLIENT_SECRET },
  });
  await server.admin("user", "create", "--email", "sso@firm.example", "--plan", "pro");
});
afterAll(async () => {
  await server.stop();
  idp.stop(true);
});

/** Follows the flow as a browser would: our redirect to the provider, its redirect back to us. */
async function signInThroughProvider(browser: CookieClient, next?: string): Promise<Response> {
  const start = await browser.get(next ? `/login/sso?next=${encodeURIComponent(next)}` : "/login/sso");
  expect(start.status).toBe(303);
  const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
  const back = new URL(atProvider.headers.get("location")!);
  return browser.get(back.pathname + back.search);
}

/** An email the provider marks unverified (in the ID token, or in UserInfo answering as said) signs no one in; `next` is put back after. */
async function expectUnverifiedRefused(email: string, userInfo?: UserInfoAnswer): Promise<void> {
  Object.assign(next, { email, emailVerified: false, userInfo });
  const unverified = new CookieClient(server.url);
  expect((await signInThroughProvider(unverified)).status).toBe(403);
  expect(unverified.cookies.has("verbatim_session")).toBe(false);
  Object.assign(next, { email: "sso@firm.example", emailVerified: true, userInfo: undefined });
}

test("the sign-in page offers the provider; the code flow with PKCE signs the user in with a fresh session", async () => {
  const browser = new CookieClient(server.url);
  expect(await (await browser.get("/login")).text()).toContain("Sign in with Firm SSO");
  const done = await signInThroughProvider(browser);
  expect(done.status).toBe(303);
  expect(done.headers.get("location")).toBe("/meetings");
  expect(browser.cookies.has("verbatim_session")).toBe(true);
  expect(browser.cookies.has("verbatim_sso")).toBe(false);
  expect((await browser.get("/meetings")).status).toBe(200);
  // What the provider was asked: S256 PKCE, our callback, a state and a nonce; the secret only in the token request's Basic auth.
  expect(seen.authorize!.get("code_challenge_method")).toBe("S256");
  expect(seen.authorize!.get("redirect_uri")).toBe(`${server.url}/login/sso/callback`);
  expect(seen.authorize!.get("scope")).toBe("openid email profile");
  expect(seen.authorize!.get("state")!.length).toBeGreaterThanOrEqual(32);
  expect(seen.authorize!.get("nonce")!.length).toBeGreaterThanOrEqual(32);
  expect(seen.authorize!.toString()).not.toContain(CLIENT_SECRET);
  expect(seen.token!.get("client_secret")).toBeNull();
  // A page asked for before signing in opens after the provider's round trip.
  const again = await signInThroughProvider(new CookieClient(server.url), "/settings/developers");
  expect(again.headers.get("location")).toBe("/settings/developers");
});

test("a provider answer brought to another browser (no state cookie), or replayed, signs no one in", async () => {
  const starter = new CookieClient(server.url);
  const start = await starter.get("/login/sso");
  const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
  const back = new URL(atProvider.headers.get("location")!);
  const victim = new CookieClient(server.url);
  const forced = await victim.get(back.pathname + back.search);
  expect(forced.status).toBe(401);
  expect(await forced.text()).toContain("not started in this browser");
  expect(victim.cookies.has("verbatim_session")).toBe(false);
  // The state was used up by that try: the right browser cannot replay it either.
  const replay = await starter.get(back.pathname + back.search);
  expect(replay.status).toBe(401);
  expect(starter.cookies.has("verbatim_session")).toBe(false);
});

test("an ID token for another sign-in (nonce), an unverified email, or an unknown person: refused", async () => {
  next.nonce = "someone-else's-nonce";
  const wrongNonce = await signInThroughProvider(new CookieClient(server.url));
  expect(wrongNonce.status).toBe(401);
  expect(await wrongNonce.text()).toContain("nonce");
  next.nonce = undefined;

  next.email = "new-person@firm.example";
  const unknown = await signInThroughProvider(new CookieClient(server.url));
  expect(unknown.status).toBe(403);
  expect(await unknown.text()).toContain("no Verbatim account has your verified email");

  await server.admin("user", "create", "--email", "unverified@firm.example", "--plan", "pro");
  await expectUnverifiedRefused("unverified@firm.example");
});

test("a provider that serves the email from UserInfo only: asked with the access token, its answer believed for the ID token's subject only", async () => {
  // People not linked yet: only the email can find their accounts.
  await Promise.all(
    ["userinfo-json@firm.example", "userinfo-jwt@firm.example", "userinfo-unverified@firm.example"].map((email) =>
      server.admin("user", "create", "--email", email, "--plan", "pro"),
    ),
  );
  next.userInfo = "json";
  next.email = "userinfo-json@firm.example";
  const json = new CookieClient(server.url);
  expect((await signInThroughProvider(json)).status).toBe(303);
  expect(json.cookies.has("verbatim_session")).toBe(true);
  expect(userInfoAuth.at(-1)).toBe(`Bearer ${accessTokenOf("userinfo-json@firm.example")}`);

  // A signed JWT answer is verified with the provider's keys, like the ID token.
  next.userInfo = "jwt";
  next.email = "userinfo-jwt@firm.example";
  const jwt = new CookieClient(server.url);
  expect((await signInThroughProvider(jwt)).status).toBe(303);
  expect(jwt.cookies.has("verbatim_session")).toBe(true);

  const refusals: [UserInfoAnswer, string][] = [
    ["json-other-sub", "about another person"],
    ["jwt-foreign-key", "signed UserInfo answer is not valid"],
    ["jwt-other-audience", "made for another client"],
    ["jwe", "encrypted"],
    ["too-large", "answered too much"],
  ];
  for (const [answer, reason] of refusals) {
    next.userInfo = answer;
    const browser = new CookieClient(server.url);
    const done = await signInThroughProvider(browser);
    expect(done.status).toBe(401);
    expect(await done.text()).toContain(reason);
    expect(browser.cookies.has("verbatim_session")).toBe(false);
  }

  // An unverified email in UserInfo counts as unverified.
  await expectUnverifiedRefused("userinfo-unverified@firm.example", "json");
});

/** A GET from the given loopback address (Linux routes all of 127.0.0.0/8 to lo): another client to the server. */
function getFrom(localAddress: string, url: string, cookie = ""): Promise<{ status: number; location: string; cookies: string[] }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { localAddress, agent: false, headers: cookie ? { cookie } : {} }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({ status: response.statusCode!, location: response.headers.location ?? "", cookies: response.headers["set-cookie"] ?? [] }),
      );
    });
    request.on("error", reject);
  });
}

/** A sign-in started from `address` and answered by the provider: the callback to call, with the state cookie. */
async function startedAt(address: string): Promise<{ callback: string; cookie: string }> {
  const start = await getFrom(address, `${server.url}/login/sso`);
  expect(start.status).toBe(303);
  const atProvider = await fetch(start.location, { redirect: "manual" });
  const back = new URL(atProvider.headers.get("location")!);
  return { callback: `${server.url}${back.pathname}${back.search}`, cookie: start.cookies.map((line) => line.split(";")[0]).join("; ") };
}

test("thousands of anonymous sign-in starts from other addresses do not push out a pending sign-in; one address's own oldest goes first", async () => {
  const victim = await startedAt("127.0.0.1");
  const attackersFirst = await startedAt("127.0.0.2");
  // 10,000 starts from 20 addresses (500 each: under the web app's per-address budget), never finished.
  const attackers = Array.from({ length: 20 }, (_, i) => `127.0.0.${i + 2}`);
  const starts = attackers.flatMap((address) => Array.from({ length: 500 }, () => address));
  let nextStart = 0;
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (nextStart < starts.length) {
        const { status } = await getFrom(starts[nextStart++]!, `${server.url}/login/sso`);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  expect(Object.fromEntries(statuses)).toEqual({ 303: 10_000 });

  const done = await getFrom("127.0.0.1", victim.callback, victim.cookie);
  expect(done.status).toBe(303);
  expect(done.cookies.some((line) => line.startsWith("verbatim_session="))).toBe(true);
  // The address that started 500 more holds only its newest: its own first sign-in is gone.
  const pushedOut = await getFrom("127.0.0.2", attackersFirst.callback, attackersFirst.cookie);
  expect(pushedOut.status).toBe(401);
}, 300_000);

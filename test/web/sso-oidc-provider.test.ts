// Single sign-on against a provider nobody here wrote: panva's oidc-provider in its default
// configuration (test/helpers/oidc-provider.ts), run in this process on loopback over http. It
// differs from the hand-written provider of sso.test.ts where it matters: in the code flow it
// keeps `email` and `email_verified` out of the ID token and serves them only from its UserInfo
// endpoint (OpenID Connect Core 5.4), and it sends the browser through its own sign-in and consent
// pages. The egress guard is told to allow it as in sso.test.ts (--egress-allow 127.0.0.1).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { LoopbackOidcProvider } from "../helpers/oidc-provider.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);

const CLIENT_ID = "verbatim-web";
const CLIENT_SECRET = "provider-issued-secret-of-at-least-32-chars";

let server: TestServer;
let idp: LoopbackOidcProvider;

beforeAll(async () => {
  // The provider must know our callback URL and we its issuer: its port first, then our server, then its answers.
  idp = await LoopbackOidcProvider.listen();
  server = await startServer({
    args: ["--egress-allow", "127.0.0.1", "--sso-issuer", idp.issuer, "--sso-client-id", CLIENT_ID, "--sso-name", "Firm IdP"],
    env: { VERBATIM_SSO_CLIENT_SECRET: CLIENT_SECRET },
  });
  idp.serve(
    { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: `${server.url}/login/sso/callback` },
    {
      "alice-at-idp": { email: "Alice@Firm.example", emailVerified: true },
      "bob-at-idp": { email: "bob@firm.example", emailVerified: false },
    },
  );
  await Promise.all(["alice@firm.example", "bob@firm.example"].map((email) => server.admin("user", "create", "--email", email, "--plan", "pro")));
});
afterAll(async () => {
  await server.stop();
  await idp.close();
});

/** A browser's walk: /login/sso, the provider's pages, and back to our callback. Returns the callback's answer. */
async function signInAt(browser: CookieClient, accountId: string): Promise<Response> {
  const start = await browser.get("/login/sso");
  expect(start.status).toBe(303);
  const back = await idp.signIn(start.headers.get("location")!, accountId);
  expect(back.origin).toBe(new URL(server.url).origin);
  return browser.get(back.pathname + back.search);
}

test("a person the provider serves by UserInfo only (the default in the code flow) signs in with a fresh session", async () => {
  const browser = new CookieClient(server.url);
  const done = await signInAt(browser, "alice-at-idp");
  expect(done.status).toBe(303);
  expect(done.headers.get("location")).toBe("/meetings");
  expect(browser.cookies.has("verbatim_session")).toBe(true);
  expect((await browser.get("/meetings")).status).toBe(200);
  // The email came from the UserInfo endpoint: the provider's ID token did not carry it.
  expect(idp.userInfoServed).toContain("alice-at-idp");
  // Once linked by (issuer, sub), the next sign-in works too.
  const again = new CookieClient(server.url);
  expect((await signInAt(again, "alice-at-idp")).status).toBe(303);
  expect(again.cookies.has("verbatim_session")).toBe(true);
});

test("an email the provider does not mark verified in UserInfo signs no one in", async () => {
  const browser = new CookieClient(server.url);
  const done = await signInAt(browser, "bob-at-idp");
  expect(done.status).toBe(403);
  expect(await done.text()).toContain("no Verbatim account has your verified email");
  expect(browser.cookies.has("verbatim_session")).toBe(false);
  expect(idp.userInfoServed).toContain("bob-at-idp");
});

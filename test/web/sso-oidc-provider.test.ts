// Single sign-on against a provider nobody here wrote: panva's oidc-provider (a certified OpenID
// Connect implementation) in its default configuration, run in this process on loopback over
// http. It differs from the hand-written provider of sso.test.ts where it matters: in the code
// flow it keeps `email` and `email_verified` out of the ID token and serves them only from its
// UserInfo endpoint (OpenID Connect Core 5.4), and it sends the browser through its own sign-in
// and consent pages. What is configured is only what every deployment must give it: the account
// lookup, our client with its callback URL, and the standard `email` scope's claims (its default
// claims list holds `sub` alone, so without this no email would ever leave it).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);

const CLIENT_ID = "verbatim-web";
const CLIENT_SECRET = "provider-issued-secret-of-at-least-32-chars";
/** The provider's people: account id → email. */
const PEOPLE: Record<string, { email: string; verified: boolean }> = {
  "alice-at-idp": { email: "Alice@Firm.example", verified: true },
  "bob-at-idp": { email: "bob@firm.example", verified: false },
};

let server: TestServer;
let idpHttp: Server;
let issuer = "";
/** Whose UserInfo the provider served, by account id: proof the claims came from there. */
const userInfoServed: string[] = [];

beforeAll(async () => {
  // The provider must know our callback URL and we its issuer: its port first, then our server, then the provider.
  idpHttp = createServer();
  await new Promise<void>((resolve) => idpHttp.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(idpHttp.address() as AddressInfo).port}`;
  server = await startServer({
    args: ["--egress-allow", "127.0.0.1", "--sso-issuer", issuer, "--sso-client-id", CLIENT_ID, "--sso-name", "Firm IdP"],
    env: { VERBATIM_SSO_CLIENT_SECRET: CLIENT_SECRET },
  });
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${server.url}/login/sso/callback`] }],
    claims: { email: ["email", "email_verified"] },
    async findAccount(ctx, accountId) {
      const person = PEOPLE[accountId];
      if (!person) return undefined;
      return {
        accountId,
        async claims(use) {
          if (use === "userinfo") userInfoServed.push(accountId);
          return { sub: accountId, email: person.email, email_verified: person.verified };
        },
      };
    },
  });
  idpHttp.on("request", provider.callback());
  await server.admin("user", "create", "--email", "alice@firm.example", "--plan", "pro");
  await server.admin("user", "create", "--email", "bob@firm.example", "--plan", "pro");
});
afterAll(async () => {
  await server.stop();
  idpHttp.closeAllConnections();
  await new Promise((resolve) => idpHttp.close(resolve));
});

/**
 * A browser's walk: /login/sso, the provider's sign-in page (its development login form, which
 * takes any password), its consent page, and back to our callback. Returns our callback's answer.
 */
async function signInAt(browser: CookieClient, accountId: string): Promise<Response> {
  const start = await browser.get("/login/sso");
  expect(start.status).toBe(303);
  const atProvider = new CookieClient(issuer);
  let location = start.headers.get("location")!;
  expect(location.startsWith(`${issuer}/`)).toBe(true);
  for (let hop = 0; hop < 12; hop++) {
    const url = new URL(location, issuer);
    if (url.origin === new URL(server.url).origin) return browser.get(url.pathname + url.search);
    const page = await atProvider.get(url.pathname + url.search);
    if (page.status === 303 || page.status === 302) {
      location = page.headers.get("location")!;
      continue;
    }
    expect(page.status).toBe(200);
    // An interaction page: its form posts the prompt it shows (login, then consent).
    const html = await page.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1]!;
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)![1]!;
    const fields: Record<string, string> = prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt };
    const submitted = await atProvider.post(new URL(action, issuer).pathname, fields, { origin: issuer });
    expect([302, 303]).toContain(submitted.status);
    location = submitted.headers.get("location")!;
  }
  throw new Error("the provider never sent the browser back");
}

test("a person the provider serves by UserInfo only (the default in the code flow) signs in with a fresh session", async () => {
  const browser = new CookieClient(server.url);
  const done = await signInAt(browser, "alice-at-idp");
  expect(done.status).toBe(303);
  expect(done.headers.get("location")).toBe("/meetings");
  expect(browser.cookies.has("verbatim_session")).toBe(true);
  const meetings = await browser.get("/meetings");
  expect(meetings.status).toBe(200);
  // The email came from the UserInfo endpoint: the provider's ID token did not carry it.
  expect(userInfoServed).toContain("alice-at-idp");
  // Once linked by (issuer, sub), the next sign-in still works.
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
  expect(userInfoServed).toContain("bob-at-idp");
});

// The browser half of the authorization server (issue 24 item 1) over real HTTP: GET
// /oauth/authorize validates the request (an unknown client or an unregistered redirect URI is a
// page, never a redirect; other errors go back to the registered URI with error, state and iss),
// a signed-out browser signs in and comes back to the same request, the consent page narrows the
// scopes (the token gets fewer), Deny answers access_denied, the decision is CSRF-checked, the page
// cannot be framed and is never stored; Settings → Connected apps lists the grant and revokes it,
// and its access token stops. Then the same flow in chromium, which takes the README's screenshots.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { eventually } from "../helpers/processes.ts";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(90_000);
type Json = any;

const PASSWORD = "correct horse battery";
const OWNER = "counsel@firm.example";
const OTHER = "nosy@firm.example";
/** The account of the README's screenshots: its own grants only. */
const PARTNER = "partner@firm.example";
const SHOTS = join(ROOT, "test-artifacts", "web");

let server: TestServer;
/** The app's registered redirect URI: a loopback listener that answers every callback with a short page. */
let callbackServer: ReturnType<typeof Bun.serve>;
let redirectUri = "";
let clientId = "";
let resource = "";

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** A PKCE pair (RFC 7636, S256). */
function pkce() {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash("sha256").update(verifier).digest()) };
}

/** An authorization request's query, as an MCP client sends it; `overrides` change or (undefined) drop a parameter. */
function authorizeQuery(challenge: string, overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "read:meetings read:transcripts",
    state: "state-from-the-app",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource,
    ...overrides,
  };
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, value);
  return `/oauth/authorize?${search}`;
}

async function signedIn(email = OWNER) {
  const client = new CookieClient(server.url);
  expect((await client.signIn(email, PASSWORD)).status).toBe(303);
  return client;
}

/** A signed-in browser on the consent page of a fresh request. */
async function onConsentPage(email = OWNER) {
  const client = await signedIn(email);
  const { verifier, challenge } = pkce();
  const page = await (await client.get(authorizeQuery(challenge))).text();
  return { client, page, verifier };
}

/** An answer that is one of our pages, with `status`, and sends the browser nowhere. */
function expectPage(answer: Response, status: number) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("location")).toBeNull();
}

/** A 303 back to the app's registered redirect URI carrying its state: the URL it went to. */
function backAtApp(answer: Response): URL {
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
  expect(back.searchParams.get("state")).toBe("state-from-the-app");
  return back;
}

/** The consent form's hidden fields and CSRF token, read from the page as a browser would post them. */
function consentForm(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const form = /<form class="stack wide" method="post" action="\/oauth\/authorize\/decision">([\s\S]*?)<\/form>/.exec(page)![1]!;
  for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)) fields[name!] = decodeHtml(value!);
  return fields;
}

function decodeHtml(text: string): string {
  return text.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#x27;|&#39;/g, "'");
}

/** Posts the decision with the page's fields; `approved` are the boxes left ticked. */
async function decide(client: CookieClient, page: string, decision: "approve" | "deny", approved: string[], extra: Record<string, string> = {}) {
  const body = new URLSearchParams({ ...consentForm(page), decision, ...extra });
  for (const scope of approved) body.append("approved_scope", scope);
  return client.post("/oauth/authorize/decision", body);
}

async function exchange(code: string, verifier: string, client = clientId): Promise<Json> {
  const response = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: client, redirect_uri: redirectUri, resource }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

/** Consent given through the page by `email`, narrowed to `approved`: the redirect's parameters and the token. */
async function approvedBy(email: string, approved: string[], app = clientId) {
  const client = await signedIn(email);
  const { verifier, challenge } = pkce();
  const page = await (await client.get(authorizeQuery(challenge, { client_id: app }))).text();
  const back = backAtApp(await decide(client, page, "approve", approved));
  return { client, back, token: await exchange(back.searchParams.get("code")!, verifier, app) };
}

/** An app registers itself (RFC 7591) with the loopback redirect URI, as an assistant does. */
async function register(name: string): Promise<string> {
  const registered = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }),
  });
  expect(registered.status).toBe(201);
  return ((await registered.json()) as Json).client_id;
}

beforeAll(async () => {
  callbackServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<!doctype html><title>Connected</title><p>You may close this window.</p>", { headers: { "content-type": "text/html" } }) });
  redirectUri = `http://127.0.0.1:${callbackServer.port}/callback`;
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000"] });
  for (const email of [OWNER, OTHER, PARTNER]) {
    await createUserWithKey(server, email);
    const set = await server.admin("user", "password", "--email", email, "--password", PASSWORD);
    if (set.code !== 0) throw new Error(set.stderr);
  }
  clientId = await register("Claude");
  // The MCP endpoint's resource (RFC 9728), as an assistant learns it.
  resource = ((await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Json).resource;
});

afterAll(async () => {
  await server?.stop();
  callbackServer?.stop(true);
});

describe("the consent page over HTTP", () => {
  test("a signed-out browser signs in and comes back to the same authorization request", async () => {
    const { challenge } = pkce();
    const request = authorizeQuery(challenge);
    const client = new CookieClient(server.url);
    const away = await client.get(request);
    expect(away.status).toBe(303);
    const login = away.headers.get("location")!;
    expect(login).toBe(`/login?next=${encodeURIComponent(request)}`);
    const loginPage = await (await client.get(login)).text();
    expect(loginPage).toContain(`name="next" value="${request.replace(/&/g, "&amp;")}"`);
    const signed = await client.post("/login", { _csrf: await client.csrfToken(login), email: OWNER, password: PASSWORD, next: request });
    expect(signed.status).toBe(303);
    expect(signed.headers.get("location")).toBe(request);
    const consent = await client.get(request);
    expect(consent.status).toBe(200);
    const page = await consent.text();
    expect(page).toContain("Claude asks to use your Verbatim account.");
    expect(page).toContain(`After your answer you go back to 127.0.0.1:${callbackServer.port}.`);
    expect(page).toContain("See your meetings and their AI reports");
    expect(page).toContain("Read your meetings' full transcripts");
    expect(page).not.toContain("Upload, change and delete meetings");
    expect(page).toContain(`You are signed in as ${OWNER}.`);
  });

  test("the consent page cannot be framed, is never stored, and its form may lead only to the app's redirect origin", async () => {
    const client = await signedIn();
    const consent = await client.get(authorizeQuery(pkce().challenge));
    const policy = consent.headers.get("content-security-policy")!;
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain(`form-action 'self' http://127.0.0.1:${callbackServer.port};`);
    expect(policy).toContain("default-src 'none'");
    expect(consent.headers.get("x-frame-options")).toBe("DENY");
    expect(consent.headers.get("cache-control")).toBe("no-store");
    // Every other page keeps the strict form-action.
    expect((await client.get("/settings/connected-apps")).headers.get("content-security-policy")).toContain("form-action 'self';");
  });

  test("the page is in French for a French browser", async () => {
    const client = await signedIn();
    const page = await (await client.get(authorizeQuery(pkce().challenge), { "accept-language": "fr-FR" })).text();
    expect(page).toContain("Claude demande à utiliser votre compte Verbatim.");
    expect(page).toContain("Voir vos réunions et leurs comptes rendus IA");
    expect(page).toContain(">Autoriser</button>");
    expect(page).toContain(">Refuser</button>");
  });

  test("narrowed consent: the redirect carries code, state and iss, and the token has only the scopes left ticked", async () => {
    // A box for a scope the app never asked for is not honoured: consent only narrows.
    const { back, token } = await approvedBy(OWNER, ["read:meetings", "write:meetings"]);
    expect(back.searchParams.get("iss")).toBe(((await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Json).issuer);
    expect(back.searchParams.get("code")!.length).toBeGreaterThan(20);
    expect(token.scope).toBe("read:meetings");
    const me = (await (await server.api("/api/v1/me", { key: token.access_token })).json()) as Json;
    expect(me.credential).toMatchObject({ type: "oauth", scopes: ["read:meetings"] });
    expect((await server.api("/api/v1/meetings", { key: token.access_token })).status).toBe(200);
  });

  test("approving with every box unticked shows the page again with a sentence; nothing goes back to the app", async () => {
    const { client, page } = await onConsentPage();
    const refused = await decide(client, page, "approve", []);
    // Issue 25: back to the consent page (303, post/redirect/get) with the sentence; the app hears nothing.
    expect(refused.status).toBe(303);
    expect(refused.headers.get("location")).toStartWith("/oauth/authorize?");
    const again = await client.follow(refused);
    expectPage(again, 200);
    expect(await again.text()).toContain("Tick at least one permission to approve, or deny.");
  });

  test("Deny sends the app access_denied with its state and our iss", async () => {
    const { client, page } = await onConsentPage();
    const back = backAtApp(await decide(client, page, "deny", ["read:meetings"]));
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("iss")).toBeTruthy();
    expect(back.searchParams.get("code")).toBeNull();
  });

  test("an unregistered redirect URI or an unknown client is a page, never a redirect", async () => {
    const client = await signedIn();
    for (const overrides of [{ redirect_uri: "https://evil.example/steal" }, { redirect_uri: `http://127.0.0.1:${callbackServer.port}/other` }, { client_id: "https://unknown.example/client.json" }, { client_id: "no-such-client" }, { client_id: undefined }]) {
      const answer = await client.get(authorizeQuery(pkce().challenge, overrides));
      expectPage(answer, 400);
      const page = await answer.text();
      expect(page).toContain("This connection request cannot be used");
      expect(page).not.toContain("evil.example/steal\"");
    }
    // A redirect_uri given twice: neither is trusted.
    const twice = await client.get(`${authorizeQuery(pkce().challenge)}&redirect_uri=${encodeURIComponent("https://evil.example/steal")}`);
    expectPage(twice, 400);
    expect(await twice.text()).toContain("A parameter of the request is given more than once.");
    // Signed out too: an unusable request never sends the browser anywhere, not even to sign in.
    const stranger = await new CookieClient(server.url).get(authorizeQuery(pkce().challenge, { redirect_uri: "https://evil.example/steal" }));
    expectPage(stranger, 400);
  });

  test("other errors go back to the registered redirect URI with error, state and iss", async () => {
    const client = await signedIn();
    for (const [overrides, error] of [
      [{ code_challenge: undefined }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ resource: undefined }, "invalid_target"],
      [{ scope: "read:meetings fly:planes" }, "invalid_scope"],
      [{ response_type: "token" }, "unsupported_response_type"],
    ] as const) {
      const back = backAtApp(await client.get(authorizeQuery(pkce().challenge, overrides)));
      expect([error, "invalid_request"]).toContain(back.searchParams.get("error")!);
      expect(back.searchParams.get("iss")).toBeTruthy();
    }
  });

  test("a request longer than the endpoint reads is a page", async () => {
    const answer = await (await signedIn()).get(authorizeQuery(pkce().challenge, { state: "s".repeat(5000) }));
    expectPage(answer, 400);
    expect(await answer.text()).toContain("The request is longer than Verbatim accepts.");
  });

  test("the decision without the session's CSRF token, or from another site, is refused and issues nothing", async () => {
    const { client, page } = await onConsentPage();
    expectPage(await decide(client, page, "approve", ["read:meetings"], { _csrf: "" }), 403);
    const body = new URLSearchParams({ ...consentForm(page), decision: "approve", approved_scope: "read:meetings" });
    expectPage(await client.post("/oauth/authorize/decision", body, { origin: "https://evil.example" }), 403);
    // Signed out, the decision goes to sign-in, not to the app.
    const stranger = await new CookieClient(server.url).post("/oauth/authorize/decision", body);
    expect(stranger.headers.get("location")).toBe("/login");
  });

  test("a hidden field changed to another redirect URI is validated again and refused with a page", async () => {
    const { client, page } = await onConsentPage();
    expectPage(await decide(client, page, "approve", ["read:meetings"], { redirect_uri: "https://evil.example/steal" }), 400);
  });
});

describe("Settings, Connected apps", () => {
  test("lists the grant with its scopes; revoking needs the confirmation, then its token stops", async () => {
    const grantIds = (page: string) => [...page.matchAll(/action="\/settings\/connected-apps\/([^/"]+)\/revoke"/g)].map((m) => m[1]!);
    const before = grantIds(await (await (await signedIn()).get("/settings/connected-apps")).text());
    const { client, token } = await approvedBy(OWNER, ["read:meetings", "read:transcripts"]);
    const listed = await client.get("/settings/connected-apps");
    expect(listed.status).toBe(200);
    const page = await listed.text();
    const added = grantIds(page).filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    const grantId = added[0]!;
    expect(page).toContain('href="/settings/connected-apps" aria-current="page"');
    expect(page).toContain("Claude");
    expect(page).toContain(`<span class="meta small">127.0.0.1:${callbackServer.port}</span>`);
    expect(page).toContain("See your meetings and their AI reports");
    const csrf = await client.csrfToken("/settings/connected-apps");

    const unconfirmed = await client.post(`/settings/connected-apps/${grantId}/revoke`, { _csrf: csrf });
    expect(unconfirmed.status).toBe(303); // issue 25: back to the page (post/redirect/get), saying so
    expect(await (await client.follow(unconfirmed)).text()).toContain("Tick the box to confirm the revocation.");
    expect((await server.api("/api/v1/me", { key: token.access_token })).status).toBe(200);

    const withoutCsrf = await client.post(`/settings/connected-apps/${grantId}/revoke`, { confirm: "yes" });
    expect(withoutCsrf.status).toBe(403);

    // Another account cannot revoke it: not found, and the token still works.
    const nosy = await signedIn(OTHER);
    const notTheirs = await nosy.post(`/settings/connected-apps/${grantId}/revoke`, { _csrf: await nosy.csrfToken("/settings/connected-apps"), confirm: "yes" });
    expect(notTheirs.status).toBe(404);
    expect((await server.api("/api/v1/me", { key: token.access_token })).status).toBe(200);
    expect(await (await nosy.get("/settings/connected-apps")).text()).toContain("No connected apps.");

    const revoked = await client.post(`/settings/connected-apps/${grantId}/revoke`, { _csrf: csrf, confirm: "yes" });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/settings/connected-apps?notice=revoked");
    const after = await (await client.get("/settings/connected-apps?notice=revoked")).text();
    expect(after).toContain("The app's access was revoked.");
    expect(after).not.toContain(`/settings/connected-apps/${grantId}/revoke`);
    const stoppedAt = Date.now();
    await eventually("the revoked grant's access token is refused", async () => (await server.api("/api/v1/me", { key: token.access_token })).status === 401, 5_000, 50);
    expect(Date.now() - stoppedAt).toBeLessThan(1_500);
  });
});

describe("the consent page in chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
    if (!executablePath) throw new Error("chromium is not installed: run npm run setup (it installs Debian's chromium)");
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
  });
  afterAll(() => browser?.close());

  test("signed out → sign in → consent, narrowed and approved → back at the app with a code; then Connected apps", async () => {
    // Another assistant connected earlier, so the list shows two.
    await approvedBy(PARTNER, ["read:meetings", "read:transcripts", "read:documents"], await register("Open WebUI"));
    const context = await browser.newContext({ locale: "en-GB", viewport: { width: 1100, height: 820 } });
    const page = await context.newPage();
    const { verifier, challenge } = pkce();
    await page.goto(`${server.url}${authorizeQuery(challenge, { scope: "read:meetings read:transcripts read:documents write:documents" })}`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.getByLabel("Email").fill(PARTNER);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/oauth/authorize");
    expect(await page.getByRole("heading", { level: 2 }).first().textContent()).toBe("Claude asks to use your Verbatim account.");
    await page.getByRole("checkbox", { name: /Write new documents/ }).uncheck();
    await page.screenshot({ path: join(SHOTS, "consent.png"), fullPage: true });
    await page.getByRole("button", { name: "Approve" }).click();
    // The browser follows the 303 to the app's loopback redirect URI: the form-action policy lets it.
    await page.waitForURL((url) => url.port === String(callbackServer.port));
    const back = new URL(page.url());
    expect(back.searchParams.get("state")).toBe("state-from-the-app");
    const token = await exchange(back.searchParams.get("code")!, verifier);
    expect(token.scope.split(" ").sort()).toEqual(["read:documents", "read:meetings", "read:transcripts"]);

    await page.goto(`${server.url}/settings/connected-apps`);
    expect(await page.getByRole("heading", { name: "Connected apps" }).isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, "connected-apps.png"), fullPage: true });
    const last = page.locator("article", { hasText: "Claude" });
    // Issue 25: with the script the "I understand" box is hidden and the browser asks instead.
    expect(await last.getByRole("checkbox").isHidden()).toBe(true);
    page.once("dialog", (dialog) => dialog.accept());
    await last.getByRole("button", { name: "Revoke the access of Claude" }).click();
    await page.waitForURL((url) => url.search === "?notice=revoked");
    expect(await page.getByRole("status").textContent()).toBe("The app's access was revoked.");
    await eventually("the token revoked from the page is refused", async () => (await server.api("/api/v1/me", { key: token.access_token })).status === 401, 5_000, 50);
    await context.close();
  });
});

// The web app's sign-in over real HTTP (issue 14): password sign-in, CSRF, session fixation,
// throttling, sign-out, the security headers, and the meetings list behind the session.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";
import { wavSizedBytes } from "../helpers/recordings.ts";
import { CookieClient } from "../helpers/web-client.ts";

let server: TestServer;
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  server = await startServer();
  const made = await server.admin("user", "create", "--email", "partner@firm.example", "--plan", "pro", "--password", PASSWORD);
  if (made.code !== 0) throw new Error(made.stderr);
});
afterAll(() => server.stop());

class Browser extends CookieClient {
  constructor() {
    super(server.url);
  }
}

async function formToken(browser: Browser): Promise<string> {
  return browser.csrfToken("/login");
}

async function signIn(browser: Browser, email = "partner@firm.example", password = PASSWORD) {
  return browser.post("/login", { _csrf: await formToken(browser), email, password });
}

test("the sign-in page: a form with labels, a strict CSP, no external resource, the session cookie only after sign-in", async () => {
  const browser = new Browser();
  const response = await browser.get("/login", { "accept-language": "fr-FR,fr;q=0.9" });
  expect(response.status).toBe(200);
  const csp = response.headers.get("content-security-policy")!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("default-src 'none'");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  const page = await response.text();
  expect(page).toContain('<html lang="fr"');
  expect(page).toContain("Mot de passe");
  expect(page).not.toMatch(/(src|href)="(https?:)?\/\//); // nothing from another origin
  expect(browser.cookies.has("verbatim_session")).toBe(false);
  const css = await browser.get("/assets/app.css");
  expect(css.headers.get("content-type")).toContain("text/css");
});

test("a right password signs in (HttpOnly, SameSite session cookie) and opens the meetings list; a wrong one is refused", async () => {
  const wrong = new Browser();
  // Issue 25: a refused sign-in comes back to the form (post/redirect/get), the email kept.
  const refused = await signIn(wrong, "partner@firm.example", "not the password");
  expect(refused.status).toBe(303);
  expect(refused.headers.get("location")).toBe("/login?next=%2Fmeetings");
  const again = await (await wrong.follow(refused)).text();
  expect(again).toContain("Wrong email or password.");
  expect(again).toContain('value="partner@firm.example"');
  expect(again).not.toContain("not the password");
  expect(wrong.cookies.has("verbatim_session")).toBe(false);

  const browser = new Browser();
  const response = await signIn(browser);
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/meetings");
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("verbatim_session="))!;
  expect(setCookie).toContain("HttpOnly");
  expect(setCookie.toLowerCase()).toContain("samesite=lax");
  const list = await browser.get("/meetings");
  expect(list.status).toBe(200);
  expect(await list.text()).toContain("<h1>Meetings</h1>");
});

test("without a session the meetings page sends the browser to /login", async () => {
  const response = await new Browser().get("/meetings");
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/login?next=%2Fmeetings");
});

test("CSRF: a sign-in or sign-out without the page's token, or from another origin, is refused", async () => {
  const browser = new Browser();
  await formToken(browser);
  // Issue 25: refused, back to the sign-in form (303, post/redirect/get) saying the form expired, no session.
  const noToken = await browser.post("/login", { email: "partner@firm.example", password: PASSWORD });
  expect(noToken.status).toBe(303);
  expect(noToken.headers.get("location")).toStartWith("/login");
  expect(await (await browser.follow(noToken)).text()).toContain("The form expired.");
  const foreign = await browser.post("/login", { _csrf: await formToken(browser), email: "partner@firm.example", password: PASSWORD }, { origin: "https://evil.example" });
  expect(foreign.status).toBe(303);
  expect(foreign.headers.get("location")).toStartWith("/login");
  expect(browser.cookies.has("verbatim_session")).toBe(false);

  await signIn(browser);
  const logout = await browser.post("/logout", {});
  expect(logout.status).toBe(403);
  expect((await browser.get("/meetings")).status).toBe(200); // still signed in
});

test("session fixation: a session token planted before sign-in is never the signed-in session", async () => {
  // Tokens exist only once signed in: a planted, made-up token names no session, and signing in
  // issues a fresh one rather than adopting what the browser brought.
  const planted = `vs_${"A".repeat(43)}`;
  const victim = new Browser();
  victim.cookies.set("verbatim_session", planted);
  expect((await victim.get("/meetings")).status).toBe(303);
  expect((await signIn(victim)).status).toBe(303);
  const issued = victim.cookies.get("verbatim_session")!;
  expect(issued).not.toBe(planted);
  expect(issued).toMatch(/^vs_[A-Za-z0-9]{43}$/);
  const attacker = new Browser();
  attacker.cookies.set("verbatim_session", planted);
  expect((await attacker.get("/meetings")).status).toBe(303); // the planted token still signs nobody in
});

test("sign-out ends the session", async () => {
  const browser = new Browser();
  await signIn(browser);
  const token = browser.cookies.get("verbatim_session")!;
  const page = await (await browser.get("/meetings")).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  expect((await browser.post("/logout", { _csrf: csrf })).status).toBe(303);
  const replay = new Browser();
  replay.cookies.set("verbatim_session", token);
  expect((await replay.get("/meetings")).status).toBe(303);
});

test("another account's meetings never show; an API key is no web session", async () => {
  const key = await createUserWithKey(server, "other@firm.example");
  const form = new FormData();
  form.append("file", new Blob([wavSizedBytes(2048)]), "x.wav");
  form.append("title", "Other firm's secret meeting");
  const created = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  expect(created.status).toBe(202);
  const browser = new Browser();
  await signIn(browser);
  expect(await (await browser.get("/meetings")).text()).not.toContain("secret meeting");
  const withKey = await fetch(`${server.url}/meetings`, { redirect: "manual", headers: { authorization: `Bearer ${key}` } });
  expect(withKey.status).toBe(303);
});

test("after repeated failures for one email, even the right password waits its delay (said in minutes)", async () => {
  await server.admin("user", "create", "--email", "target@firm.example", "--password", PASSWORD);
  const browser = new Browser();
  // Issue 25: each refusal is a redirect back to the form (303); the throttled one carries Retry-After.
  for (let i = 0; i < 5; i++) {
    const wrong = await signIn(browser, "target@firm.example", `guess ${i} wrong`);
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("retry-after")).toBeNull();
    expect(await (await browser.follow(wrong)).text()).toContain("Wrong email or password.");
  }
  const blocked = await signIn(browser, "target@firm.example", PASSWORD);
  expect(blocked.status).toBe(303);
  expect(blocked.headers.get("location")).toStartWith("/login");
  expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await (await browser.follow(blocked)).text()).toContain("Try again in 1 minute.");
  expect(browser.cookies.has("verbatim_session")).toBe(false);
});

test("behind a TLS-terminating proxy (--public-url https://…): the proxy's origin is this site's, and the cookie is Secure", async () => {
  const proxied = await startServer({ args: ["--public-url", "https://verbatim.firm.example"] });
  try {
    await proxied.admin("user", "create", "--email", "partner@firm.example", "--password", PASSWORD);
    const login = await fetch(`${proxied.url}/login`);
    const formCookie = login.headers.getSetCookie().find((c) => c.startsWith("verbatim_form="))!;
    expect(formCookie).toContain("Secure");
    const token = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1]!;
    const signIn = (origin: string) =>
      fetch(`${proxied.url}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: `verbatim_form=${token}`, "content-type": "application/x-www-form-urlencoded", origin },
        body: new URLSearchParams({ _csrf: token, email: "partner@firm.example", password: PASSWORD }).toString(),
      });
    const elsewhere = await signIn("https://elsewhere.example");
    expect(elsewhere.status).toBe(303); // issue 25: back to the form, no session
    expect(elsewhere.headers.get("location")).toStartWith("/login");
    expect(elsewhere.headers.getSetCookie().some((c) => c.startsWith("verbatim_session="))).toBe(false);
    const accepted = await signIn("https://verbatim.firm.example");
    expect(accepted.status).toBe(303);
    expect(accepted.headers.getSetCookie().find((c) => c.startsWith("verbatim_session="))).toContain("Secure");
  } finally {
    await proxied.stop();
  }
});

test("a page asked for while signed out opens after sign-in; a next that would leave the site is ignored", async () => {
  const browser = new Browser();
  const id = crypto.randomUUID();
  const away = await browser.get(`/meetings/${id}?notice=saved`);
  expect(away.status).toBe(303);
  expect(away.headers.get("location")).toBe(`/login?next=${encodeURIComponent(`/meetings/${id}?notice=saved`)}`);
  const page = await (await browser.get(away.headers.get("location")!)).text();
  expect(page).toContain(`name="next" value="/meetings/${id}?notice=saved"`);
  const signedIn = await browser.post("/login", { _csrf: await formToken(browser), email: "partner@firm.example", password: PASSWORD, next: `/meetings/${id}?notice=saved` });
  expect(signedIn.status).toBe(303);
  expect(signedIn.headers.get("location")).toBe(`/meetings/${id}?notice=saved`);

  for (const hostile of ["https://evil.example/", "//evil.example/meetings", "/\\evil.example", "/login?next=/x", "/api/v1/me", "/logout", "meetings"]) {
    const other = new Browser();
    const response = await other.post("/login", { _csrf: await formToken(other), email: "partner@firm.example", password: PASSWORD, next: hostile });
    expect(response.headers.get("location")).toBe("/meetings");
  }
});

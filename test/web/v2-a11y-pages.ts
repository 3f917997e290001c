// What the accessibility pass (issue 25 item 9) goes over: a server with every kind of page to
// show (a completed meeting with its transcript, report and a document, one processing, one failed,
// an account with no meetings, an administrator, an OAuth client for the consent page) and THE
// TABLE OF PAGES. A slice that adds a page adds a row to PAGES; v2-a11y.test.ts (desk) and
// v2-a11y-phone.test.ts (phone) run axe-core on each row in the light and the dark theme.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { run } from "../../src/db/conn.ts";
import { meetings } from "../../src/meetings/table.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { ROOT, SHARED_FIXTURES, startServer, type TestServer } from "../helpers/server.ts";

type Json = any;

export const PASSWORD = "correct horse battery";
/** The processing meeting's title: long enough that the old skip link (the title, moved 999 px left) showed over the logo. */
export const LONG_TITLE = `Weekly sync of the regional operations, finance, legal and clinical governance teams ${"with every follow-up ".repeat(9)}`.trim().slice(0, 290);
/** Who looks at a page: nobody, an account with meetings, an account with none, an administrator. */
export type Viewer = "signed-out" | "owner" | "empty" | "admin";
const EMAILS: Record<Exclude<Viewer, "signed-out">, string> = { owner: "owner@firm.example", empty: "new@firm.example", admin: "admin@localhost" };

/** What the rows' paths are built from, made once by setUp. */
export interface Fixture {
  server: TestServer;
  completed: string;
  processing: string;
  failed: string;
  ownerId: string;
  endpoint: string;
  client: string;
  signInLink: string;
  consent: string;
}

/**
 * THE TABLE: every page of the web app, as whom, at which path. Add the pages other slices create
 * here (`/shared/...`, client pages, ...); `status` is the answer expected (200 unless given), `ready`
 * waits for what the page's script adds, if anything.
 */
export const PAGES: { name: string; as: Viewer; path: (f: Fixture) => string; status?: number; ready?: (page: Page) => Promise<unknown> }[] = [
  { name: "sign-in", as: "signed-out", path: () => "/login" },
  { name: "not found (signed out)", as: "signed-out", path: () => "/meetings/not-a-page/at-all", status: 404 },
  { name: "sign-in link", as: "signed-out", path: (f) => new URL(f.signInLink).pathname },
  { name: "meetings (empty)", as: "empty", path: () => "/meetings" },
  { name: "meetings", as: "owner", path: () => "/meetings" },
  { name: "meetings, searched (snippets)", as: "owner", path: () => "/meetings?q=spoken" },
  { name: "meetings, bulk deletion confirmed first", as: "owner", path: (f) => `/meetings/delete?ids=${f.completed}&ids=${f.failed}` },
  { name: "meeting, completed", as: "owner", path: (f) => `/meetings/${f.completed}` },
  { name: "meeting, processing", as: "owner", path: (f) => `/meetings/${f.processing}` },
  { name: "meeting, failed", as: "owner", path: (f) => `/meetings/${f.failed}` },
  { name: "correct a line (no script)", as: "owner", path: (f) => `/meetings/${f.completed}/segments/1/edit` },
  { name: "upload and text form", as: "owner", path: () => "/meetings/new" },
  { name: "record", as: "owner", path: () => "/record" },
  { name: "not found (signed in)", as: "owner", path: () => "/settings/nothing-here", status: 404 },
  { name: "settings", as: "owner", path: () => "/settings" },
  { name: "settings: developers", as: "owner", path: () => "/settings/developers" },
  { name: "settings: webhooks", as: "owner", path: () => "/settings/webhooks" },
  { name: "settings: a webhook endpoint", as: "owner", path: (f) => `/settings/webhooks/${f.endpoint}` },
  { name: "settings: usage", as: "owner", path: () => "/settings/usage" },
  { name: "settings: activity", as: "owner", path: () => "/settings/activity" },
  { name: "settings: retention", as: "owner", path: () => "/settings/retention" },
  { name: "settings: vocabulary", as: "owner", path: () => "/settings/vocabulary" },
  { name: "settings: redaction", as: "owner", path: () => "/settings/redaction" },
  { name: "settings: connected apps", as: "owner", path: () => "/settings/connected-apps" },
  { name: "shared with me", as: "empty", path: () => "/shared" },
  { name: "a meeting shared with me", as: "empty", path: (f) => `/meetings/${f.completed}` },
  { name: "clients", as: "owner", path: () => "/clients" },
  { name: "a client folder", as: "owner", path: (f) => `/clients/${f.client}` },
  { name: "OAuth consent", as: "owner", path: (f) => f.consent },
  { name: "admin: users", as: "admin", path: () => "/admin/users" },
  { name: "admin: a user", as: "admin", path: (f) => `/admin/users/${f.ownerId}` },
  { name: "admin: usage", as: "admin", path: () => "/admin/usage" },
  { name: "admin: status", as: "admin", path: () => "/admin/status" },
  { name: "admin: audit trail", as: "admin", path: () => "/admin/audit" },
];

const AXE_SOURCE = readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");

/** Axe's findings that fail the pass: impact serious or critical, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Our CSP (script-src 'self', no inline script) refuses page.addScriptTag({ content }): axe is
  // evaluated through the DevTools protocol instead, which the page's policy does not govern.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => `${n.target.join(" ")} ${n.failureSummary?.split("\n").slice(1, 2).join("") ?? ""}`.trim()) }));
  })) as { id: string; impact: string; help: string; nodes: string[] }[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 4).join(" | ")}`);
}

async function uploadMeeting(server: TestServer, key: string, title: string): Promise<string> {
  const form = new FormData();
  form.append("file", Bun.file(join(SHARED_FIXTURES, "meeting-en-3spk.wav")), "meeting.wav");
  form.append("title", title);
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json;
  if (!created.id) throw new Error(`upload refused: ${JSON.stringify(created)}`);
  return created.id;
}

async function settled(server: TestServer, key: string, id: string): Promise<Json> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
    if (meeting.status === "completed" || meeting.status === "failed") return meeting;
    if (Date.now() > deadline) throw new Error(`meeting ${id} still ${meeting.status}`);
    await Bun.sleep(100);
  }
}

/** The server and what the table's rows point at. */
export async function setUp(): Promise<Fixture> {
  const server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10", "--egress-allow", "127.0.0.1"] });
  const cli = async (...args: string[]) => {
    const done = await server.admin(...args);
    if (done.code !== 0) throw new Error(done.stderr);
    return done.stdout;
  };
  // The admin CLI's runs are independent processes: side by side.
  const [owner, , leaver] = await Promise.all([
    cli("user", "create", "--email", EMAILS.owner, "--plan", "pro", "--password", PASSWORD, "--json"),
    cli("user", "create", "--email", EMAILS.empty, "--plan", "pro", "--password", PASSWORD),
    cli("user", "create", "--email", "leaver@firm.example", "--link", "--public-url", server.url, "--json"),
    cli("user", "password", "--email", EMAILS.admin, "--password", PASSWORD),
  ]);
  const key = (JSON.parse(await cli("key", "create", "--email", EMAILS.owner, "--name", "test", "--scopes", "all", "--json")) as { key: string }).key;
  const ownerId = (JSON.parse(owner) as { id: string }).id;
  const signInLink = (JSON.parse(leaver) as { sign_in_link: string }).sign_in_link;
  // A webhook endpoint nobody answers (port 9, allowed as a test host): its page lists failed deliveries.
  const endpoint = (await (await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: "https://127.0.0.1:9/hooks", events: ["*"], description: "CRM" } })).json()) as Json;
  if (!endpoint.id) throw new Error(`endpoint refused: ${JSON.stringify(endpoint)}`);
  const [completed, processing, failed] = await Promise.all(["Incident review – Ward 4", LONG_TITLE, "Board call"].map((title) => uploadMeeting(server, key, title)));
  await Promise.all([completed, processing, failed].map((id) => settled(server, key, id!)));
  // A client and tags on the completed meeting, and a document written from it.
  const patched = (await (await server.api(`/api/v1/meetings/${completed}`, { method: "PATCH", key, json: { client: { name: "Acme Health" }, tags: ["ward-4", "incident"] } })).json()) as Json;
  if (!patched.client?.id) throw new Error(`no client: ${JSON.stringify(patched)}`);
  const queued = (await (await server.api(`/api/v1/meetings/${completed}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } })).json()) as Json;
  for (let i = 0; i < 600; i++) {
    const job = (await (await server.api(`/api/v1/jobs/${queued.id}`, { key })).json()) as Json;
    if (job.status === "completed" || job.status === "failed") break;
    await Bun.sleep(100);
  }
  // The completed meeting shared with the account that has none of its own.
  const browserOfOwner = new CookieClient(server.url);
  await browserOfOwner.signIn(EMAILS.owner, PASSWORD);
  const shared = await browserOfOwner.post(`/meetings/${completed}/shares`, { _csrf: await browserOfOwner.csrfToken(`/meetings/${completed}`), email: EMAILS.empty, permission: "view" });
  if (shared.status !== 303 || !shared.headers.get("location")?.includes("notice=shared")) throw new Error(`share refused: ${shared.status} ${shared.headers.get("location")}`);
  // The other two are shown as still processing and as failed: their pages are what is under test, not the engines.
  const conn = server.conn();
  await run(conn, (q) => q.update(meetings).set({ status: "processing" }).where(eq(meetings.id, processing!)));
  await run(conn, (q) => q.update(meetings).set({ status: "failed" }).where(eq(meetings.id, failed!)));
  // An assistant registered for the consent page (RFC 7591), asking with PKCE.
  const redirectUri = "http://127.0.0.1:9/callback";
  const registered = (await (
    await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }),
    })
  ).json()) as Json;
  const resource = ((await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Json).resource;
  const consent = `/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: redirectUri,
    scope: "read:meetings read:transcripts write:documents",
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    resource,
  })}`;
  return { server, completed: completed!, processing: processing!, failed: failed!, ownerId, endpoint: endpoint.id, client: patched.client.id, signInLink, consent };
}

export async function launch(): Promise<Browser> {
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed: run npm run setup (it installs Debian's chromium)");
  return chromium.launch({ executablePath, args: ["--no-sandbox"] });
}

/**
 * Axe over one row of the table: the page loaded once and checked in the light then the dark
 * theme (emulated: the stylesheet's prefers-color-scheme); answers the findings by theme.
 */
export async function axeRow(contexts: Record<Viewer, BrowserContext>, fixture: Fixture, row: (typeof PAGES)[number]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  const page = await contexts[row.as].newPage();
  try {
    const answer = await page.goto(`${fixture.server.url}${row.path(fixture)}`);
    if (answer?.status() !== (row.status ?? 200)) found.page = [`answered ${answer?.status()}`];
    await row.ready?.(page);
    // Nothing is wider than the screen (WCAG 1.4.10, reflow): on a phone, this is what counts.
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    if (widths.page > widths.screen) found.reflow = [`${widths.page} px wide on a ${widths.screen} px screen`];
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const violations = await seriousViolations(page);
      if (background !== (colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)")) violations.push(`the theme did not apply (background ${background})`);
      if (violations.length > 0) found[colorScheme] = violations;
    }
  } finally {
    await page.close();
  }
  return found;
}

/** One browser context per viewer, signed in through the form; every URL any page asks for goes to `requested`. */
export async function contextsFor(browser: Browser, server: TestServer, options: BrowserContextOptions, requested: string[]): Promise<Record<Viewer, BrowserContext>> {
  const out = {} as Record<Viewer, BrowserContext>;
  for (const viewer of ["signed-out", "owner", "empty", "admin"] as Viewer[]) {
    const context = await browser.newContext({ locale: "en-GB", ...options });
    context.on("request", (request) => requested.push(request.url()));
    if (viewer !== "signed-out") {
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      await page.getByLabel("Email").fill(EMAILS[viewer]);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname === "/meetings");
      await page.close();
    }
    out[viewer] = context;
  }
  return out;
}

/** The URLs asked for that are not on the server's origin (nothing may be). */
export function foreign(requested: string[], origin: string): string[] {
  return requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("blob:") && !url.startsWith("data:"));
}

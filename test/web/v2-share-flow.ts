// Sharing a meeting inside the firm (issue 25 item 7), in chromium with two people in two browser
// contexts (v2-share.test.ts at desk size, v2-share-phone.test.ts at phone size): the owner shares (view, then view and correct), the colleague
// finds it under "Shared with me", reads it without controls, corrects a line once allowed, and
// loses it when the owner stops sharing; forged posts are refused; the colleague's API key never
// sees the meeting; a third user sees nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportAuditEntries, type AuditRow } from "../../src/audit/store.ts";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { call, refusal } from "../helpers/mcp-client.ts";
import { ROOT, SHARED_FIXTURES, settledMeeting, startServer, type TestServer } from "../helpers/server.ts";

const PASSWORD = "correct horse battery";
const OWNER = "owner@firm.example";
const COLLEAGUE = "colleague@firm.example";
const THIRD = "third@firm.example";
const TITLE = "Incident review – Ward 4";
/** Screenshots to look at (not compared). */
const SHOTS = join(ROOT, "test-artifacts", "web");

let server: TestServer;
let browser: Browser;
let ownerKey = "";
let colleagueKey = "";
let meetingId = "";
/** Every URL any page asked for: none may leave the server's origin. */
const requested: string[] = [];

async function signIn(page: Page, email: string) {
  await page.goto(`${server.url}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/meetings$/);
}

async function person(email: string, size: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: "en-GB", ...size });
  context.on("request", (request) => requested.push(request.url()));
  const page = await context.newPage();
  await signIn(page, email);
  return { context, page };
}

/**
 * A POST the page's own script could send (its session and CSRF token): what a forged form would do.
 * A script asking for JSON gets the refusal's status; a browser's form post is refused the error
 * layer's way (web/error-pages.tsx): a 303 back to the page it came from, which says why — answered
 * here as "303: <that page's text>".
 */
function forgedPost(page: Page, path: string, fields: Record<string, string>, accept = "text/html"): Promise<number | string> {
  return page.evaluate(
    async ({ path, fields, accept }) => {
      const csrf = (document.querySelector("input[name=_csrf]") as HTMLInputElement).value;
      const body = new URLSearchParams({ _csrf: csrf, ...fields });
      const manual = await fetch(path, { method: "POST", body, headers: { accept }, redirect: "manual" });
      if (manual.type !== "opaqueredirect") return manual.status;
      // Sent again to read where it lands: refused again, so nothing more changes.
      const followed = await fetch(path, { method: "POST", body, headers: { accept } });
      return `303: ${new DOMParser().parseFromString(await followed.text(), "text/html").body.textContent ?? ""}`;
    },
    { path, fields, accept },
  );
}

/** A browser form's refusal of an owner's action: back to the page, which says only the owner may. */
const OWNER_ONLY = expect.stringMatching(/^303: [\s\S]*Only the meeting’s owner can do this\./);

async function keyFor(email: string): Promise<string> {
  const made = await server.admin("key", "create", "--email", email, "--name", "test", "--scopes", "all", "--json");
  if (made.code !== 0) throw new Error(made.stderr);
  return (JSON.parse(made.stdout) as { key: string }).key;
}

/** The server, three users, the owner's meeting (uploaded through the API) and chromium. */
function setUp(): void {
  beforeAll(async () => {
    // This module is shared by the desk and the phone files, which one `bun test` process may run
    // one after the other: each file's URLs are its own server's.
    requested.length = 0;
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
    // Each admin command is a process of its own: started together.
    for (const made of await Promise.all([OWNER, COLLEAGUE, THIRD].map((email) => server.admin("user", "create", "--email", email, "--plan", "pro", "--password", PASSWORD)))) {
      if (made.code !== 0) throw new Error(made.stderr);
    }
    [ownerKey, colleagueKey] = await Promise.all([keyFor(OWNER), keyFor(COLLEAGUE)]);
    const form = new FormData();
    form.append("title", TITLE);
    form.append("file", new Blob([readFileSync(join(SHARED_FIXTURES, "meeting-en-3spk.wav"))], { type: "audio/wav" }), "ward4.wav");
    const created = (await (await server.api("/api/v1/meetings", { method: "POST", key: ownerKey, body: form })).json()) as { id: string };
    meetingId = created.id;
    expect((await settledMeeting(server, ownerKey, meetingId, 60_000)).status).toBe("completed");
    const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
    if (!executablePath) throw new Error("chromium is not installed");
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
}

/** The whole flow at one screen size (its own server, meeting and browser): desk and phone are two test files, each under 90 s. */
export function sharingFlow(sizeName: "desk" | "phone", size: BrowserContextOptions): void {
  setUp();
  describe(`sharing a meeting (${sizeName})`, () => {
    let owner: { context: BrowserContext; page: Page };
    let colleague: { context: BrowserContext; page: Page };
    const meetingUrl = () => `${server.url}/meetings/${meetingId}`;
    const line = sizeName === "desk" ? 1 : 2;

    beforeAll(async () => {
      owner = await person(OWNER, size);
      colleague = await person(COLLEAGUE, size);
    });
    afterAll(async () => {
      await owner?.context.close();
      await colleague?.context.close();
    });

    test("an unknown email comes back at the field with the input kept; the colleague's email shares the meeting to view", async () => {
      const { page } = owner;
      await page.goto(meetingUrl());
      const panel = page.locator("section#share");
      await panel.getByLabel("Colleague’s email").fill("nobody@firm.example");
      await panel.getByRole("button", { name: "Share" }).click();
      await page.waitForLoadState("load");
      const email = panel.getByLabel("Colleague’s email");
      expect(await email.inputValue()).toBe("nobody@firm.example");
      expect(await email.getAttribute("aria-invalid")).toBe("true");
      expect(await panel.locator(".field-error").textContent()).toContain("No active account here uses this email");
      await email.fill(COLLEAGUE);
      await panel.getByLabel("Read and download", { exact: true }).check();
      await panel.getByRole("button", { name: "Share" }).click();
      await page.waitForURL(/notice=shared/);
      expect(await page.getByRole("status").first().textContent()).toContain("Shared.");
      expect(await panel.locator("ul.shares li").count()).toBe(1);
      expect(await panel.locator("ul.shares li").textContent()).toContain(COLLEAGUE);
      // A reload does not share again (post/redirect/get).
      await page.reload();
      expect(await panel.locator("ul.shares li").count()).toBe(1);
      await panel.screenshot({ path: join(SHOTS, `share-panel-${sizeName}.png`) });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
    });

    test("the colleague finds it under Shared with me and reads it without any control of the owner's", async () => {
      const { page } = colleague;
      await page.goto(`${server.url}/meetings`);
      await page.getByRole("link", { name: "Shared with me" }).click();
      await page.waitForURL(/\/shared$/);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Shared with me");
      expect(await page.locator("table.shared-list tbody tr").textContent()).toContain(OWNER);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
      await page.screenshot({ path: join(SHOTS, `shared-with-me-${sizeName}.png`) });
      await page.getByRole("link", { name: TITLE }).click();
      await page.waitForURL(new RegExp(`/meetings/${meetingId}$`));
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(TITLE);
      expect(await page.locator(".shared-by").textContent()).toContain(`${OWNER} shared this meeting with you`);
      expect(await page.locator("ol.transcript li").count()).toBeGreaterThan(3);
      expect(await page.locator("audio#player").count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, `shared-meeting-${sizeName}.png`), fullPage: true });
      for (const absent of ["a.edit", "section#share", "form[action$='/delete']", "form[action$='/details']", "form[action$='/documents']", "form[action$='/speakers']", "form[action$='/report/regenerate']", "form[action$='/hold']"]) {
        expect({ absent, count: await page.locator(absent).count() }).toEqual({ absent, count: 0 });
      }
      // The downloads and the recording are the colleague's to read.
      const transcript = await page.evaluate(async (url) => (await fetch(url)).status, `${meetingUrl()}/transcript/txt`);
      expect(transcript).toBe(200);
      const audio = await page.evaluate(async (url) => (await fetch(url, { headers: { range: "bytes=0-9" } })).status, `${meetingUrl()}/audio`);
      expect(audio).toBe(206);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
    });

    test("forged posts of a view-only colleague are refused, and nothing changed", async () => {
      const { page } = colleague;
      expect(await forgedPost(page, `/meetings/${meetingId}/segments/0`, { text: "forged words" }, "application/json")).toBe(403);
      expect(await forgedPost(page, `/meetings/${meetingId}/speakers`, { "speaker.SPEAKER_00": "Mallory" })).toEqual(OWNER_ONLY);
      expect(await forgedPost(page, `/meetings/${meetingId}/delete`, { confirm: "yes" })).toEqual(OWNER_ONLY);
      expect(await forgedPost(page, `/meetings/${meetingId}/details`, { title: "Forged" })).toEqual(OWNER_ONLY);
      expect(await forgedPost(page, `/meetings/${meetingId}/hold`, { legal_hold: "true" })).toEqual(OWNER_ONLY);
      expect(await forgedPost(page, `/meetings/${meetingId}/documents`, { prompt: "Write" })).toEqual(OWNER_ONLY);
      expect(await forgedPost(page, `/meetings/${meetingId}/shares`, { email: THIRD, permission: "view" })).toBe(404);
      const meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key: ownerKey })).json()) as { title: string; legal_hold: boolean };
      expect(meeting.title).toBe(TITLE);
      const segments = ((await (await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key: ownerKey })).json()) as { segments: { text: string }[] }).segments;
      expect(segments.some((s) => s.text === "forged words")).toBe(false);
    });

    test("the colleague's API key never sees the shared meeting; a third user sees nothing", async () => {
      const list = (await (await server.api("/api/v1/meetings", { key: colleagueKey })).json()) as { data: { id: string }[] };
      expect(list.data.map((m) => m.id)).not.toContain(meetingId);
      expect((await server.api(`/api/v1/meetings/${meetingId}`, { key: colleagueKey })).status).toBe(404);
      expect((await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key: colleagueKey })).status).toBe(404);
      // MCP's tools are the same owner-only use cases.
      const mcp = new Client({ name: "colleague", version: "1.0.0" });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${colleagueKey}` } } }));
      for (const tool of ["get_meeting", "get_transcript"]) expect((await refusal(mcp, tool, { meeting_id: meetingId })).code).toBe("not_found");
      expect((await call(mcp, "search_meetings", {})).data).toEqual([]);
      await mcp.close();
      // The colleague's reads are in the owner's trail, naming the colleague.
      const [ownerId, colleagueId] = await Promise.all([OWNER, COLLEAGUE].map(async (email) => (await getUserByEmail(server.conn(), email))!.id));
      const trail: AuditRow[] = [];
      for await (const row of exportAuditEntries(server.conn(), { accountId: ownerId! })) trail.push(row);
      expect(trail.some((row) => row.action === "transcript.read" && row.actorUserId === colleagueId && row.resourceId === meetingId)).toBe(true);
      expect(trail.some((row) => row.action === "meeting.shared" && row.actorUserId === ownerId)).toBe(true);
      const third = await person(THIRD, size);
      expect((await third.page.goto(meetingUrl()))!.status()).toBe(404);
      expect(await third.page.content()).not.toContain(TITLE);
      await third.page.goto(`${server.url}/shared`);
      expect(await third.page.getByText("No colleague has shared a meeting with you yet.").count()).toBe(1);
      await third.context.close();
    });

    test("allowed to correct, the colleague corrects a line in place and the owner sees it", async () => {
      const panel = owner.page.locator("section#share");
      await panel.getByLabel("Colleague’s email").fill(COLLEAGUE);
      await panel.getByLabel("Read, download and correct the transcript").check();
      await panel.getByRole("button", { name: "Share" }).click();
      await owner.page.waitForURL(/notice=shared/);
      expect(await panel.locator("ul.shares li").count()).toBe(1);
      const { page } = colleague;
      await page.goto(meetingUrl());
      expect(await page.locator(".shared-by").textContent()).toContain("correct the transcript");
      const words = `Corrected by a colleague on the ${sizeName}`;
      const item = page.locator("ol.transcript li").nth(line);
      await item.getByRole("link", { name: /Correct the line/ }).click();
      await item.locator("textarea").fill(words);
      await item.locator("textarea").press("Control+Enter");
      await item.locator("textarea").waitFor({ state: "detached" });
      expect(await item.locator("p").textContent()).toBe(words);
      // Still no owner's control.
      expect(await page.locator("section#share, form[action$='/delete'], form[action$='/details']").count()).toBe(0);
      // The speakers' names too.
      const speakers = page.locator("form[action$='/speakers']");
      const name = `Dr Okafor (${sizeName})`;
      await speakers.locator("input[name^='speaker.']").first().fill(name);
      await speakers.getByRole("button", { name: "Save the names" }).click();
      // Renamed in place by the page's script (the workspace): no navigation, a status line.
      await speakers.locator("output").getByText("Speaker names saved.").waitFor();
      await owner.page.goto(meetingUrl());
      expect(await owner.page.locator("ol.transcript li").nth(line).locator("p").textContent()).toBe(words);
      expect(await owner.page.locator("form[action$='/speakers'] input[name^='speaker.']").first().inputValue()).toBe(name);
    });

    test("stopping the share asks first; then the colleague gets the 404 page and an empty list", async () => {
      const { page } = owner;
      const panel = page.locator("section#share");
      const confirm = panel.getByRole("button", { name: "Yes, stop sharing" });
      expect(await confirm.isVisible()).toBe(false);
      await panel.locator("details.confirm summary").click();
      expect(await panel.locator("details.confirm").textContent()).toContain(`Stop sharing with ${COLLEAGUE}?`);
      await panel.screenshot({ path: join(SHOTS, `share-revoke-${sizeName}.png`) });
      await confirm.click();
      await page.waitForURL(/notice=unshared/);
      expect(await panel.getByText("Not shared with anyone yet.").count()).toBe(1);
      const response = await colleague.page.goto(meetingUrl());
      expect(response!.status()).toBe(404);
      expect(await colleague.page.content()).not.toContain(TITLE);
      await colleague.page.goto(`${server.url}/shared`);
      expect(await colleague.page.locator("table.shared-list").count()).toBe(0);
    });
  });

  test("no page loaded anything from another origin", () => {
    expect(requested.length).toBeGreaterThan(10);
    const origin = new URL(server.url).origin;
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("blob:") && !url.startsWith("data:"))).toEqual([]);
  });
}

// Issue 25, slice list, in chromium at desk (1280×900) and phone (Pixel 7) sizes: the meetings
// list's empty state, its folded filters, status badges with a failure's reason in words, search
// snippets with the match highlighted (and escaped), sorting kept in the URL, bulk tag / move /
// delete (one confirmation page; another account's id in the post changes nothing; a legal hold
// keeps its meeting), and client folders: create, rename (a taken name comes back at the field),
// archive, unarchive, the folder's meetings. Runs on PostgreSQL too (the snippets differ there).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, devices, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createUserWithKey, ROOT, settledMeeting, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);
type Json = any;

const PASSWORD = "correct horse battery";
const OWNER = "lister@firm.example";
const OTHER = "elsewhere@firm.example";
const SHOTS = join(ROOT, "test-artifacts", "web");

let server: TestServer;
let browser: Browser;
let ownerKey = "";
let otherKey = "";
const contexts: BrowserContext[] = [];
let desk: Page;
let phone: Page;
/** Every URL any page asked for: none may leave the server's origin. */
const requested: string[] = [];
/** The owner's meetings by title. */
const ids: Record<string, string> = {};
let theirs = "";

async function signIn(page: Page) {
  await page.goto(`${server.url}/login`);
  await page.locator('input[name="email"]').fill(OWNER);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('main form button[type="submit"]').first().click();
  await page.waitForURL(/\/meetings$/);
}

/** A meeting from a text transcript, through the API, settled. */
async function textMeeting(key: string, title: string, text: string, recordedAt: string): Promise<string> {
  const form = new FormData();
  form.set("title", title);
  form.set("recorded_at", recordedAt);
  form.set("transcript", new File([text], "notes.txt", { type: "text/plain" }));
  const response = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
  const { id } = (await response.json()) as Json;
  const settled = await settledMeeting(server, key, id, 60_000);
  if (settled.status !== "completed") throw new Error(`${title}: ${settled.status}`);
  return id;
}

/** A video without a sound track: accepted (it is a recording), then its processing fails (no_audio). */
async function failedMeeting(title: string, recordedAt: string): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), "verbatim-list-")), "silent.mp4");
  const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=16x16:d=1", "-c:v", "mpeg4", path]);
  if (made.exitCode !== 0) throw new Error(made.stderr.toString());
  const form = new FormData();
  form.set("title", title);
  form.set("recorded_at", recordedAt);
  form.set("file", new File([readFileSync(path)], "silent.mp4", { type: "video/mp4" }));
  const response = await server.api("/api/v1/meetings", { method: "POST", key: ownerKey, body: form });
  if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
  const { id } = (await response.json()) as Json;
  const settled = await settledMeeting(server, ownerKey, id, 60_000);
  if (settled.status !== "failed") throw new Error(`${title}: ${settled.status}`);
  return id;
}

const meeting = async (id: string, key = ownerKey): Promise<Json> => (await server.api(`/api/v1/meetings/${id}`, { key })).json();
/** The titles of the list's rows, in order. */
const titles = (page: Page) => page.locator('table.meetings-list tbody tr td > a[href^="/meetings/"]').allTextContents();
/** The row of a meeting's title. */
const row = (page: Page, title: string) => page.locator("table.meetings-list tbody tr", { has: page.getByRole("link", { name: title, exact: true }) });
/** Another account's meeting slipped into the bulk form's post. */
const slipInTheirs = (page: Page) =>
  page.evaluate((id) => {
    const input = Object.assign(document.createElement("input"), { type: "hidden", name: "ids", value: id });
    document.getElementById("bulk")!.append(input);
  }, theirs);
const noWiderThanScreen = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
  ownerKey = await createUserWithKey(server, OWNER);
  otherKey = await createUserWithKey(server, OTHER);
  const set = await server.admin("user", "password", "--email", OWNER, "--password", PASSWORD);
  if (set.code !== 0) throw new Error(set.stderr);
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed");
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
  for (const options of [{ viewport: { width: 1280, height: 900 } }, devices["Pixel 7"]!]) {
    const context = await browser.newContext({ ...options, locale: "en-GB" });
    context.on("request", (request) => requested.push(request.url()));
    contexts.push(context);
  }
  desk = await contexts[0]!.newPage();
  phone = await contexts[1]!.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the meetings list and client folders (issue 25, slice list)", () => {
  test("a new account's list says what to do first, with three ways to start (desk and phone)", async () => {
    for (const page of [desk, phone]) {
      await signIn(page);
      await page.getByRole("heading", { name: "Your meetings will appear here" }).waitFor();
      expect(await page.getByRole("link", { name: "Record a meeting" }).getAttribute("href")).toBe("/record");
      expect(await page.getByRole("link", { name: "Upload a recording" }).getAttribute("href")).toBe("/meetings/new");
      expect(await page.getByRole("link", { name: "Paste a transcript" }).getAttribute("href")).toBe("/meetings/new#text-title");
      // Not the "no match" sentence, and no filters over nothing.
      expect(await page.getByText("No meeting matches").count()).toBe(0);
      expect(await page.locator("form.filters").count()).toBe(0);
      await noWiderThanScreen(page);
    }
    await phone.getByRole("link", { name: "Paste a transcript" }).click();
    await phone.waitForURL(/\/meetings\/new#text-title$/);
  });

  test("meetings of several kinds, one of them failed, one of another account", async () => {
    ids["Alpha board review"] = await textMeeting(ownerKey, "Alpha board review", "Alice: We agreed the quarterly budget for the hospital wing.\nBob: Fine <img src=x onerror=alert(1)> by me.", "2026-01-10T09:00:00Z");
    ids["beta retro"] = await textMeeting(ownerKey, "beta retro", "Carol: The sprint went well.\nDan: Ship it on Friday.", "2026-02-01T09:00:00Z");
    ids["Zeta kickoff"] = await textMeeting(ownerKey, "Zeta kickoff", "Erin: Kickoff of project Zeta.\nFrank: Timeline agreed.", "2026-03-01T09:00:00Z");
    ids["Broken upload"] = await failedMeeting("Broken upload", "2026-04-01T09:00:00Z");
    theirs = await textMeeting(otherKey, "Their budget", "Gina: The budget is theirs.", "2026-01-05T09:00:00Z");
  });

  test("filters are folded behind one line until one is set; the search box stays in sight; nothing matching offers to clear them", async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${server.url}/meetings`);
      const details = page.locator("form.filters details");
      expect(await details.getAttribute("open")).toBeNull();
      expect(await page.getByRole("searchbox", { name: "Search" }).isVisible()).toBe(true);
      expect(await page.getByLabel("Tag", { exact: true }).isVisible()).toBe(false);
      await details.locator("summary").click();
      await page.getByLabel("Tag", { exact: true }).fill("nothing-has-this");
      await page.getByRole("button", { name: "Filter", exact: true }).click();
      await page.waitForURL(/tag=nothing-has-this/);
      expect(await page.locator("form.filters details").getAttribute("open")).not.toBeNull();
      expect(await page.locator("form.filters summary").textContent()).toBe("More filters (1 set)");
      await page.getByText("No meeting matches these filters.").waitFor();
      expect(await page.getByRole("heading", { name: "Your meetings will appear here" }).count()).toBe(0);
      await page.getByRole("link", { name: "Clear the filters" }).click();
      await page.waitForURL(/\/meetings$/);
      expect((await titles(page)).length).toBe(4);
      await noWiderThanScreen(page);
    }
  });

  test("each row's status is a badge in words; a failed meeting says why in words", async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${server.url}/meetings`);
      const failed = row(page, "Broken upload");
      expect(await failed.locator(".badge.failed").textContent()).toBe("Failed");
      expect(await failed.locator(".failure-reason").textContent()).toBe("The recording has no sound in it.");
      expect(await row(page, "Zeta kickoff").locator(".badge.completed").textContent()).toBe("Completed");
      expect(await row(page, "Zeta kickoff").locator(".failure-reason").count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, `v2-list-${page === desk ? "desk" : "phone"}.png`), fullPage: true });
    }
  });

  test("a search shows where it matched, the words highlighted and the text escaped; another account's meetings never show", async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${server.url}/meetings`);
      await page.getByRole("searchbox", { name: "Search" }).fill("budget");
      await page.getByRole("searchbox", { name: "Search" }).press("Enter");
      await page.waitForURL(/q=budget/);
      expect(await titles(page)).toEqual(["Alpha board review"]);
      const snippet = row(page, "Alpha board review").locator("p.snippet");
      expect(await snippet.locator("mark").allTextContents()).toEqual(["budget"]);
      expect(await snippet.textContent()).toContain("quarterly budget for the hospital wing");
      // The transcript's markup is text, never HTML.
      await page.getByRole("searchbox", { name: "Search" }).fill("onerror");
      await page.getByRole("searchbox", { name: "Search" }).press("Enter");
      await page.waitForURL(/q=onerror/);
      const escaped = row(page, "Alpha board review").locator("p.snippet");
      expect(await escaped.textContent()).toContain("<img src=x");
      if (page === desk) await page.screenshot({ path: join(SHOTS, "v2-list-search.png") });
      expect(await page.locator("table.meetings-list img").count()).toBe(0);
    }
  });

  test("sort by recorded date, newest or oldest, or by title: kept in the URL and through the next page", async () => {
    for (const page of [desk, phone]) {
      await page.goto(`${server.url}/meetings`);
      expect(await titles(page)).toEqual(["Broken upload", "Zeta kickoff", "beta retro", "Alpha board review"]);
      // The script applies the choice at once.
      await page.getByLabel("Sort").selectOption("title");
      await page.waitForURL(/sort=title/);
      expect(await titles(page)).toEqual(["Alpha board review", "beta retro", "Broken upload", "Zeta kickoff"]);
      await page.getByLabel("Sort").selectOption("oldest");
      await page.waitForURL(/sort=oldest/);
      expect(await titles(page)).toEqual(["Alpha board review", "beta retro", "Zeta kickoff", "Broken upload"]);
    }
    // Page by page, in the same order.
    const seen: string[] = [];
    for (let url: string | null = `${server.url}/meetings?sort=title&limit=3`; url; ) {
      const html = await (await desk.request.get(url)).text();
      seen.push(...[...html.matchAll(/<a href="\/meetings\/[0-9a-f-]{36}" id="title-[0-9a-f-]{36}">([^<]+)<\/a>/g)].map((m) => m[1]!));
      const next = html.match(/<a href="(\/meetings\?[^"]*cursor=[^"]*)">Older meetings<\/a>/);
      url = next ? `${server.url}${next[1]!.replaceAll("&amp;", "&")}` : null;
    }
    expect(seen).toEqual(["Alpha board review", "beta retro", "Broken upload", "Zeta kickoff"]);
  });

  test("in French: the list's words, a failure's reason, the client folders' form", async () => {
    const context = await browser.newContext({ locale: "fr-FR", viewport: { width: 1280, height: 900 } });
    context.on("request", (request) => requested.push(request.url()));
    const page = await context.newPage();
    await signIn(page);
    expect(await page.locator("form.filters summary").textContent()).toBe("Plus de filtres");
    expect(await page.getByLabel("Trier").inputValue()).toBe("newest");
    expect(await row(page, "Broken upload").locator(".failure-reason").textContent()).toBe("L’enregistrement ne contient aucun son.");
    expect(await page.getByRole("button", { name: "Supprimer…", exact: true }).count()).toBe(1);
    await page.goto(`${server.url}/clients`);
    await page.getByRole("heading", { name: "Nouveau dossier client" }).waitFor();
    await context.close();
  });

  test("client folders: create, a taken name kept at the field, rename, archive and unarchive (phone)", async () => {
    const page = phone;
    await page.goto(`${server.url}/clients`);
    await page.getByLabel("Name of the new client").fill("Acme");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL(/\/clients\/cli_\d+\?notice=created$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Acme");
    await page.getByText("Client folder created.").waitFor();
    await page.getByText("No meeting in this folder yet.", { exact: false }).waitFor();
    // A second folder of the same name (any case) is refused at the field, the name kept.
    await page.goto(`${server.url}/clients`);
    await page.getByLabel("Name of the new client").fill("ACME");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.waitForURL(/\/clients$/);
    const field = page.getByLabel("Name of the new client");
    expect(await field.inputValue()).toBe("ACME");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    await page.getByText("You already have a client folder with this name.").waitFor();
    await page.reload();
    expect(await page.getByText("You already have a client folder with this name.").count()).toBe(0);
    // Renamed on its page.
    await page.getByRole("link", { name: "Acme", exact: true }).click();
    await page.waitForURL(/\/clients\/cli_\d+$/);
    await page.getByLabel("Name", { exact: true }).fill("Acme Ltd");
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await page.waitForURL(/notice=renamed$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Acme Ltd");
    const clients = (await (await server.api("/api/v1/clients", { key: ownerKey })).json()) as Json;
    expect(clients.data.map((c: Json) => c.name)).toEqual(["Acme Ltd"]);
    // Archived and back, from its page.
    await page.getByRole("button", { name: "Archive", exact: true }).click();
    await page.waitForURL(/notice=archived$/);
    await page.getByText("This client folder is archived", { exact: false }).waitFor();
    expect(((await (await server.api("/api/v1/clients", { key: ownerKey })).json()) as Json).data).toEqual([]);
    await page.getByRole("button", { name: "Unarchive", exact: true }).click();
    await page.waitForURL(/notice=unarchived$/);
    expect(await page.getByText("This client folder is archived", { exact: false }).count()).toBe(0);
    // Another account cannot open it.
    const other = await (await server.api("/api/v1/clients", { key: otherKey })).json();
    expect((other as Json).data).toEqual([]);
    await noWiderThanScreen(page);
  });

  test("bulk: tag and move the selected meetings; the summary says what happened; another account's id changes nothing", async () => {
    const page = desk;
    await page.goto(`${server.url}/meetings?sort=title`);
    await row(page, "Alpha board review").getByRole("checkbox").check();
    await row(page, "beta retro").getByRole("checkbox").check();
    await slipInTheirs(page);
    await page.getByLabel("Tag to add").fill("board");
    await page.getByRole("button", { name: "Add the tag", exact: true }).click();
    await page.waitForURL(/done=tagged/);
    expect(new URL(page.url()).searchParams.get("sort")).toBe("title");
    await page.getByText("2 meetings tagged “board”. 1 could not be changed (no longer in your account).").waitFor();
    expect((await meeting(ids["Alpha board review"]!)).tags).toEqual(["board"]);
    expect((await meeting(ids["beta retro"]!)).tags).toEqual(["board"]);
    expect((await meeting(theirs, otherKey)).tags).toEqual([]);

    // Select all, then leave two out, and move them to the client folder.
    await page.goto(`${server.url}/meetings`);
    await page.getByRole("checkbox", { name: "Select all" }).check();
    expect(await page.locator('input[name="ids"]:checked').count()).toBe(4);
    await row(page, "Zeta kickoff").getByRole("checkbox").uncheck();
    await row(page, "Broken upload").getByRole("checkbox").uncheck();
    await slipInTheirs(page);
    await page.getByLabel("Client folder").selectOption({ label: "Acme Ltd" });
    await page.getByRole("button", { name: "Move", exact: true }).click();
    await page.waitForURL(/done=moved/);
    await page.getByText("2 meetings moved to Acme Ltd.", { exact: false }).waitFor();
    expect((await meeting(ids["Alpha board review"]!)).client.name).toBe("Acme Ltd");
    expect((await meeting(ids["beta retro"]!)).client.name).toBe("Acme Ltd");
    expect((await meeting(ids["Zeta kickoff"]!)).client).toBeNull();
    expect((await meeting(theirs, otherKey)).client).toBeNull();

    // The folder's page lists them.
    await page.goto(`${server.url}/clients`);
    await page.getByRole("link", { name: "Acme Ltd" }).click();
    expect((await titles(page)).sort()).toEqual(["Alpha board review", "beta retro"]);
    await page.screenshot({ path: join(SHOTS, "v2-list-client.png"), fullPage: true });
    // Filtered by tag in the list.
    await page.goto(`${server.url}/meetings?tag=board`);
    expect((await titles(page)).sort()).toEqual(["Alpha board review", "beta retro"]);
  });

  test("bulk delete asks once, on a page naming the meetings; a legal hold keeps its meeting; another account's id deletes nothing", async () => {
    const page = phone;
    expect((await server.api(`/api/v1/meetings/${ids["Zeta kickoff"]}`, { method: "PATCH", key: ownerKey, json: { legal_hold: true } })).status).toBe(200);
    await page.goto(`${server.url}/meetings`);
    await row(page, "Broken upload").getByRole("checkbox").check();
    await row(page, "Zeta kickoff").getByRole("checkbox").check();
    await slipInTheirs(page);
    await page.getByRole("button", { name: "Delete…", exact: true }).click();
    await page.waitForURL(/\/meetings\/delete\?/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Delete meetings");
    // Only the account's own meetings are named.
    expect((await page.locator("main ul li").allTextContents()).sort()).toEqual(["Broken upload", "Zeta kickoff"]);
    // Cancel goes back without deleting.
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL(/\/meetings$/);
    expect((await titles(page)).length).toBe(4);
    await page.goBack();
    await page.getByRole("button", { name: "Delete 2 meetings", exact: true }).click();
    await page.waitForURL(/done=deleted/);
    await page.getByText("1 meeting deleted. Kept because of a legal hold: Zeta kickoff.").waitFor();
    expect((await server.api(`/api/v1/meetings/${ids["Broken upload"]}`, { key: ownerKey })).status).toBe(404);
    expect((await meeting(ids["Zeta kickoff"]!)).id).toBe(ids["Zeta kickoff"]);
    expect((await meeting(theirs, otherKey)).id).toBe(theirs);
    // A crafted post straight to the action (no confirmation step skipped for another account's id either).
    const csrf = await page.locator('form#bulk input[name="_csrf"]').inputValue();
    const crafted = await page.request.post(`${server.url}/meetings/bulk`, {
      form: { _csrf: csrf, action: "delete", confirm: "yes", ids: theirs },
      headers: { origin: server.url },
      maxRedirects: 0,
    });
    expect(crafted.status()).toBe(303);
    expect((await meeting(theirs, otherKey)).id).toBe(theirs);
    await noWiderThanScreen(page);
  });

  test("nothing was fetched from another host", () => {
    const origin = new URL(server.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    for (const url of requested) expect(new URL(url).origin).toBe(origin);
  });
});

// The administration console (issue 23 item 6) over real HTTP with a browser's cookie jar: 404 for
// anyone who is not an active administrator; an admin creates a user whose one-time sign-in link
// signs them in once and not twice; disabling stops their API key (401) and their session, enabling
// restores the key; plan, credits and spend cap; the usage page's numbers against the ledger; the
// status page naming the development stand-in models; the audit trail of what the console did.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { CookieClient } from "../helpers/web-client.ts";
import { createUserWithKey, endedJob, ROOT, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);
const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const PASSWORD = "correct horse battery staple";
let server: TestServer;
let admin: CookieClient;

/** The value of the one-time link a page shows (ShownOnce's input). */
function shownLink(page: string): string {
  const found = /id="shown-once"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*id="shown-once"/.exec(page);
  const url = found?.[1] ?? found?.[2];
  if (!url) throw new Error("no sign-in link on the page");
  return url;
}

/** Opens a sign-in link in a fresh browser and chooses a password: the response of the form. */
async function useLink(url: string, password = PASSWORD, browser = new CookieClient(server.url)) {
  const path = new URL(url).pathname;
  const page = await browser.get(path);
  // A spent link's page has no form: the replay sends the form token its cookie holds, as a kept form would.
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? browser.cookies.get("verbatim_link_form") ?? "none";
  return { browser, opened: page.status, response: await browser.post(path, { _csrf: csrf, password }) };
}

/** A console form: the page's CSRF token, then the post. */
async function consolePost(client: CookieClient, path: string, fields: Record<string, string> = {}) {
  return client.post(path, { _csrf: await client.csrfToken("/admin/users"), ...fields });
}

async function userIdOf(email: string): Promise<string> {
  const list = JSON.parse((await server.admin("user", "list", "--json")).stdout) as { id: string; email: string }[];
  return list.find((u) => u.email === email)!.id;
}

beforeAll(async () => {
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rates", "transcription_hour=360,report_mtok=10000,document_mtok=10000", "--allowances", "free=100000,standard=100000,pro=100000"],
  });
  // The first-run admin has no password: a sign-in link from the shell gives it one.
  const link = await server.admin("user", "link", "--email", "admin@localhost", "--public-url", server.url, "--json");
  expect(link.code).toBe(0);
  const { browser, response } = await useLink(JSON.parse(link.stdout).sign_in_link);
  expect(response.status).toBe(303);
  admin = browser;
});
afterAll(() => server?.stop());

describe("who sees the console", () => {
  test("a signed-out browser and a signed-in user who is not an admin get 404 on every console page and form", async () => {
    const key = await createUserWithKey(server, "plain@firm.example", "all", "standard");
    expect(key).toMatch(/^vb_live_/);
    const link = JSON.parse((await server.admin("user", "link", "--email", "plain@firm.example", "--public-url", server.url, "--json")).stdout).sign_in_link;
    const { browser: user } = await useLink(link);
    expect((await user.get("/meetings")).status).toBe(200);
    const csrf = await user.csrfToken("/settings");
    const plainId = await userIdOf("plain@firm.example");
    for (const client of [user, new CookieClient(server.url)]) {
      for (const path of ["/admin", "/admin/users", `/admin/users/${plainId}`, "/admin/usage", "/admin/status", "/admin/audit"]) {
        const response = await client.get(path);
        expect(response.status).toBe(404);
        expect(await response.text()).not.toContain("/admin/users");
      }
      expect((await client.post("/admin/users", { _csrf: csrf, email: "sneak@firm.example" })).status).toBe(404);
      expect((await client.post(`/admin/users/${plainId}/role`, { _csrf: csrf, role: "admin" })).status).toBe(404);
    }
    // Nothing was done: no user created, no role changed.
    const list = JSON.parse((await server.admin("user", "list", "--json")).stdout) as { email: string; role: string }[];
    expect(list.some((u) => u.email === "sneak@firm.example")).toBe(false);
    expect(list.find((u) => u.email === "plain@firm.example")!.role).toBe("user");
    // The admin sees it, and the navigation links it for them only.
    expect((await admin.get("/admin")).headers.get("location")).toBe("/admin/users");
    expect(await (await admin.get("/meetings")).text()).toContain('href="/admin"');
    expect(await (await user.get("/meetings")).text()).not.toContain('href="/admin"');
  });
});

describe("users", () => {
  test("an admin creates a user: the one-time link signs them in once, and not twice", async () => {
    // Issue 25: post/redirect/get, the link shown once on the page the form redirects to.
    const created = await consolePost(admin, "/admin/users", { email: "New.Person@Firm.example", name: "New Person", plan: "standard", role: "user" });
    expect(created.status).toBe(303);
    const shown = await admin.follow(created);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    const page = await shown.text();
    const url = shownLink(page);
    expect(url).toStartWith(`${server.url}/login/link/vl_`);
    expect(page).toContain("new.person@firm.example");

    const first = await useLink(url);
    expect(first.opened).toBe(200);
    expect(first.response.status).toBe(303);
    expect(first.response.headers.get("location")).toBe("/meetings");
    expect((await first.browser.get("/meetings")).status).toBe(200);
    // The password chosen through the link signs in on the sign-in form too.
    expect((await new CookieClient(server.url).signIn("new.person@firm.example", PASSWORD)).status).toBe(303);

    const again = await useLink(url, "another long password");
    expect(again.opened).toBe(404);
    expect(again.response.status).toBe(303); // issue 25: back to the link's page, which says it is spent
    const spent = await again.browser.follow(again.response);
    expect(spent.status).toBe(404);
    expect(await spent.text()).toContain("This sign-in link is not valid");
    expect(again.browser.cookies.has("verbatim_session")).toBe(false);
    // The console lists the user with the plan and role it was given.
    const list = await (await admin.get("/admin/users")).text();
    expect(list).toContain("new.person@firm.example");
    expect(list).toContain("New Person");
  });

  test("a link refuses a weak password and stays usable; a reset sign-in ends sessions and the old password", async () => {
    const created = await consolePost(admin, "/admin/users", { email: "reset@firm.example", plan: "free" });
    const url = shownLink(await (await admin.follow(created)).text());
    const weak = await useLink(url, "short");
    expect(weak.response.status).toBe(303); // issue 25: back to the link's form, the rule at the field
    expect(await (await weak.browser.follow(weak.response)).text()).toContain("The password must be");
    const { browser } = await useLink(url);
    expect((await browser.get("/meetings")).status).toBe(200);

    const id = await userIdOf("reset@firm.example");
    const reset = await consolePost(admin, `/admin/users/${id}/reset-sign-in`);
    expect(reset.status).toBe(303);
    const newUrl = shownLink(await (await admin.follow(reset)).text());
    expect(newUrl).not.toBe(url);
    // Their session ended and the password was cleared.
    expect((await browser.get("/meetings")).status).toBe(303);
    expect((await new CookieClient(server.url).signIn("reset@firm.example", PASSWORD)).headers.get("location")).toStartWith("/login");
    expect((await useLink(newUrl, "a brand new password")).response.status).toBe(303);
  });

  test("disable stops the user's API key (401) and session; enable restores the key", async () => {
    const key = await createUserWithKey(server, "leaver@firm.example", "all", "standard");
    const link = JSON.parse((await server.admin("user", "link", "--email", "leaver@firm.example", "--public-url", server.url, "--json")).stdout).sign_in_link;
    const { browser } = await useLink(link);
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
    const id = await userIdOf("leaver@firm.example");

    const disabled = await consolePost(admin, `/admin/users/${id}/disable`);
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get("location")).toBe(`/admin/users/${id}?notice=disable`);
    expect((await server.api("/api/v1/me", { key })).status).toBe(401);
    expect((await browser.get("/meetings")).status).toBe(303);
    expect((await new CookieClient(server.url).signIn("leaver@firm.example", PASSWORD)).headers.get("location")).toStartWith("/login");
    expect(await (await admin.get(`/admin/users/${id}`)).text()).toContain('data-field="state">Disabled');

    expect((await consolePost(admin, `/admin/users/${id}/enable`)).status).toBe(303);
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
    expect((await new CookieClient(server.url).signIn("leaver@firm.example", PASSWORD)).headers.get("location")).toBe("/meetings");
  });

  test("plan, credits and spend cap change; a bad amount is refused with its sentence", async () => {
    const key = await createUserWithKey(server, "billing@firm.example", "all", "free");
    const id = await userIdOf("billing@firm.example");
    expect((await consolePost(admin, `/admin/users/${id}/plan`, { plan: "pro" })).status).toBe(303);
    expect((await consolePost(admin, `/admin/users/${id}/credits`, { amount: "250", note: "pilot" })).status).toBe(303);
    expect((await consolePost(admin, `/admin/users/${id}/cap`, { cap: "1200" })).status).toBe(303);
    const usage = (await (await server.api("/api/v1/usage", { key })).json()) as any;
    expect(usage).toMatchObject({ plan: "pro", wallet: { credits: 250 }, on_demand: { enabled: true, spend_cap: 1200 } });

    // Issue 25: a refusal comes back to the user's page (303) with its sentence.
    const bad = await consolePost(admin, `/admin/users/${id}/credits`, { amount: "-5" });
    expect(bad.status).toBe(303);
    expect(bad.headers.get("location")).toBe(`/admin/users/${id}`);
    expect(await (await admin.follow(bad)).text()).toContain("whole number of minor units");
    const badPlan = await consolePost(admin, `/admin/users/${id}/plan`, { plan: "platinum" });
    expect(badPlan.status).toBe(303);
    expect(badPlan.headers.get("location")).toBe(`/admin/users/${id}`);
    expect((await consolePost(admin, `/admin/users/${id}/cap`, { cap: "" })).status).toBe(303);
    expect(((await (await server.api("/api/v1/usage", { key })).json()) as any).on_demand.enabled).toBe(false);
    // Another id is not found, as anywhere else.
    expect((await consolePost(admin, "/admin/users/usr_doesnotexist0000/plan", { plan: "pro" })).status).toBe(404);
  });

  test("the last active administrator cannot be demoted or disabled (409); with a second admin it can", async () => {
    const adminId = await userIdOf("admin@localhost");
    const demote = await consolePost(admin, `/admin/users/${adminId}/role`, { role: "user" });
    // Issue 25: refused, back to the user's page (303) saying why; nothing changed.
    expect(demote.status).toBe(303);
    expect(await (await admin.follow(demote)).text()).toContain("last active administrator");
    const disable = await consolePost(admin, `/admin/users/${adminId}/disable`);
    expect(await (await admin.follow(disable)).text()).toContain("last active administrator");

    const created = await consolePost(admin, "/admin/users", { email: "second.admin@firm.example", role: "admin" });
    const { browser: second } = await useLink(shownLink(await (await admin.follow(created)).text()));
    expect((await second.get("/admin/users")).status).toBe(200);
    const secondId = await userIdOf("second.admin@firm.example");
    expect((await consolePost(admin, `/admin/users/${secondId}/role`, { role: "user" })).status).toBe(303);
    // No longer an admin: the console is gone for them at once.
    expect((await second.get("/admin/users")).status).toBe(404);
  });
});

describe("usage, status and the audit trail", () => {
  test("the usage page's numbers are the ledger's", async () => {
    const key = await createUserWithKey(server, "metered@firm.example", "all", "standard");
    const form = new FormData();
    form.append("file", Bun.file(FIXTURE), "m.wav");
    const meeting = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
    const job = await endedJob(server, key, meeting.job.id, 60_000);
    expect(job.status).toBe("completed");
    const lines = ((await (await server.api("/api/v1/usage/ledger", { key })).json()) as any).data as any[];
    expect(lines.length).toBeGreaterThan(0);
    const cost = lines.reduce((sum, l) => sum + l.cost, 0);
    const audioSeconds = lines.filter((l) => l.operation === "transcription").reduce((sum, l) => sum + l.quantities.audio_seconds, 0);
    const reports = lines.filter((l) => l.operation === "report").length;
    expect(cost).toBeGreaterThan(0);

    const page = await (await admin.get("/admin/usage")).text();
    const id = await userIdOf("metered@firm.example");
    const row = new RegExp(`<tr data-user="${id}" data-period="${lines[0].period}">(.*?)</tr>`).exec(page)?.[1];
    expect(row).toBeDefined();
    expect(row).toContain(`data-minor="${cost}"`);
    expect(/data-field="reports">(\d+)</.exec(row!)?.[1]).toBe(String(reports));
    expect(/data-field="audio-minutes">([\d.,]+)</.exec(row!)?.[1]).toBe((Math.round((audioSeconds / 60) * 10) / 10).toString());
    // The CLI gives the same numbers.
    const cli = JSON.parse((await server.admin("usage", "--json")).stdout) as { data: any[] };
    expect(cli.data.find((r) => r.user_id === id)).toMatchObject({ period: lines[0].period, amount: cost, reports });
    // A month that is not one is refused with its sentence.
    expect((await admin.get("/admin/usage?from=2026-13")).status).toBe(400);
  });

  test("the status page shows the models and that they are development stand-ins, the disk and the nodes", async () => {
    const response = await admin.get("/admin/status");
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('data-stand-in="true"');
    expect(page).toContain("development stand-in");
    expect(page).toMatch(/<dt>data<\/dt><dd>[^<]+ free of /);
    expect(page).toMatch(/<code>node_[^<]+<\/code>/);
  });

  test("the audit page lists what the console did, by whom, with filters", async () => {
    const id = await userIdOf("leaver@firm.example");
    // The trail writes in batches: wait for the console's entries to land.
    let page = "";
    for (let i = 0; i < 40 && !page.includes('data-action="user.enabled"'); i++) {
      await Bun.sleep(100);
      page = await (await admin.get(`/admin/audit?account=${id}`)).text();
    }
    expect(page).toContain('data-action="user.disabled"');
    expect(page).toContain('data-action="user.enabled"');
    const row = /<tr data-action="user\.disabled"[^>]*>(.*?)<\/tr>/.exec(page)?.[1] ?? "";
    expect(row).toContain("admin@localhost · webapp");
    expect(row).toContain(`user ${id}`);
    // Only that account's entries.
    expect([...page.matchAll(/data-account="([^"]+)"/g)].every((m) => m[1] === id)).toBe(true);
    const userKind = await (await admin.get("/admin/audit?kind=user")).text();
    expect(userKind).toContain('data-action="user.created"');
    expect(userKind).not.toMatch(/data-action="(?!user\.)/);
  });
});

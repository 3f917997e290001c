// API keys per account are bounded (issue 20, item 5): the rate limit counts per credential (SPEC 8),
// so without a bound every new key would bring another full budget. An account holds at most 20
// active keys by default (--max-api-keys): Settings, Developers refuses the 21st with a page that
// says why (409), the admin CLI refuses it too, a revoked key frees its place, and the option raises
// the bound. Real server, over HTTP.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(90_000);

const PASSWORD = "correct horse battery";
const EMAIL = "many-keys@firm.example";
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ args: ["--rate-limits", "pro=100000,anonymous=100000"] });
  await createUserWithKey(server, EMAIL); // the account's first active key
  await server.admin("user", "password", "--email", EMAIL, "--password", PASSWORD);
});
afterAll(() => server.stop());

const keyIds = (page: string) => [...page.matchAll(/\/settings\/developers\/keys\/(key_\w+)\/revoke/g)].map((m) => m[1]!);

describe("active API keys per account", () => {
  test("the web app creates keys up to 20 active, then refuses with 409 and why; a revoked key frees a place; the admin CLI holds the same bound unless told otherwise", async () => {
    const browser = new CookieClient(server.url);
    await browser.signIn(EMAIL, PASSWORD);
    const csrf = await browser.csrfToken("/settings/developers");
    const create = (name: string) => browser.post("/settings/developers/keys", new URLSearchParams([["_csrf", csrf], ["name", name], ["scope", "read:meetings"]]));

    const keys: string[] = [];
    for (let i = 2; i <= 20; i++) {
      // Issue 25: post/redirect/get, the key shown once on the page the form redirects to.
      const created = await create(`key ${i}`);
      expect(created.status).toBe(303);
      keys.push(/value="(vb_live_\w+)"/.exec(await (await browser.follow(created)).text())![1]!);
    }
    const refused = await create("key 21");
    expect(refused.status).toBe(303);
    const page = await (await browser.follow(refused)).text();
    expect(page).toContain("already has 20 active API keys");
    expect(page).not.toMatch(/vb_live_[0-9A-Za-z]{40}/); // no key was made, none shown
    expect(keyIds(page)).toHaveLength(20);
    expect(page).toContain("20 of at most 20 active keys");

    // Every key that was made works: the bound is on keys, each with its own budget.
    const me = await server.api("/api/v1/me", { key: keys.at(-1)! });
    expect(me.status).toBe(200);

    // The admin CLI holds the same bound.
    const byAdmin = await server.admin("key", "create", "--email", EMAIL, "--name", "ops", "--scopes", "all");
    expect(byAdmin.code).not.toBe(0);
    expect(byAdmin.stderr).toContain("already has 20 active API keys");

    // Revoking one frees its place.
    const revoked = await browser.post(`/settings/developers/keys/${keyIds(page)[0]}/revoke`, { _csrf: csrf, confirm: "yes" });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/settings/developers?notice=revoked");
    const made = await create("key 21");
    expect(/value="(vb_live_\w+)"/.test(await (await browser.follow(made)).text())).toBe(true);
    const over = await create("key 22");
    expect(await (await browser.follow(over)).text()).toContain("already has 20 active API keys");

    // The operator may raise the bound.
    const raised = await server.admin("key", "create", "--email", EMAIL, "--name", "ops", "--scopes", "all", "--max-api-keys", "21", "--json");
    expect(raised.code).toBe(0);
    expect(JSON.parse(raised.stdout).key).toStartWith("vb_live_");
  });
});

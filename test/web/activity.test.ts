// Settings → Activity over real HTTP (issue 23 item 4): the signed-in account's audit trail, newest
// first, filtered by kind, dates and resource, paged by keyset, in English and French; another
// account's entries never show, and a filter that is not one is a 400 page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendAuditEntries } from "../../src/audit/store.ts";
import { systemEntry } from "../../src/audit/types.ts";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

let server: TestServer;
const PASSWORD = "correct horse battery";
let anaId: string;
let benId: string;
const browser = () => new CookieClient(server.url);

beforeAll(async () => {
  server = await startServer({ args: ["--trusted-proxy", "127.0.0.1,::1"] });
  for (const email of ["ana@firm.example", "ben@firm.example"]) {
    const made = await server.admin("user", "create", "--email", email, "--plan", "pro", "--password", PASSWORD);
    if (made.code !== 0) throw new Error(made.stderr);
  }
  anaId = (await getUserByEmail(server.conn(), "ana@firm.example"))!.id;
  benId = (await getUserByEmail(server.conn(), "ben@firm.example"))!.id;
});
afterAll(() => server.stop());

/** The table rows of an Activity page, as text. */
function rowsOf(page: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? "";
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim());
}

async function activity(client: CookieClient, query = "", headers: Record<string, string> = {}) {
  // The trail is written every 250 ms: what the requests before recorded is in after a moment.
  await Bun.sleep(400);
  const response = await client.get(`/settings/activity${query}`, headers);
  return { status: response.status, page: await response.text() };
}

test("the account's sign-in, failed sign-in and new key show newest first, with where they came from; another account's never", async () => {
  const ana = browser();
  const csrf = await ana.csrfToken("/login");
  expect((await ana.post("/login", { _csrf: csrf, email: "ana@firm.example", password: "a wrong password" }, { "x-forwarded-for": "192.0.2.44" })).headers.get("location")).toStartWith("/login"); // issue 25: refused, back to the form
  expect((await ana.post("/login", { _csrf: csrf, email: "ana@firm.example", password: PASSWORD }, { "x-forwarded-for": "192.0.2.45" })).status).toBe(303);
  const token = await ana.csrfToken("/settings/developers");
  const made = await ana.post("/settings/developers/keys", { _csrf: token, name: "ci", scope: "read:meetings" }, { "x-forwarded-for": "192.0.2.46" });
  expect(made.status).toBe(303); // issue 25: post/redirect/get
  expect(await (await ana.follow(made)).text()).toContain("Key “ci” created");
  const ben = browser();
  expect((await ben.signIn("ben@firm.example", PASSWORD)).status).toBe(303);

  const { status, page } = await activity(ana);
  expect(status).toBe(200);
  const rows = rowsOf(page);
  // Newest first, and last the administrator's creation of the account (beforeAll's admin user create).
  expect(rows).toHaveLength(4);
  expect(rows[3]).toContain("Account created by an administrator");
  expect(rows[3]).toContain("Administrator (command line)");
  expect(rows[0]).toContain("API key created");
  expect(rows[0]).toContain("192.0.2.46");
  expect(rows[1]).toContain("Signed in");
  expect(rows[1]).toContain("192.0.2.45");
  expect(rows[2]).toContain("Sign-in failed");
  expect(rows[2]).toContain("192.0.2.44");
  expect(page).not.toContain(benId);
  expect(page).toContain('aria-current="page">Activity');

  const benPage = await activity(ben);
  // Ben's own sign-in, and his account's creation by the administrator.
  expect(rowsOf(benPage.page)).toHaveLength(2);
  expect(benPage.page).not.toContain("192.0.2.4");
});

test("filters: by kind, by dates (both days included), by resource id", async () => {
  const ana = browser();
  expect((await ana.signIn("ana@firm.example", PASSWORD)).status).toBe(303);
  const keys = rowsOf((await activity(ana, "?kind=api_key")).page);
  expect(keys).toHaveLength(1);
  expect(keys[0]).toContain("API key created");
  const today = new Date().toISOString().slice(0, 10);
  expect(rowsOf((await activity(ana, `?from=${today}&to=${today}`)).page).length).toBeGreaterThanOrEqual(4);
  expect(rowsOf((await activity(ana, "?to=2020-01-01")).page)).toHaveLength(0);
  expect(rowsOf((await activity(ana, `?resource=${anaId}&kind=auth`)).page).length).toBeGreaterThanOrEqual(2);
  expect(rowsOf((await activity(ana, "?resource=key_unknown")).page)).toHaveLength(0);
});

test("a filter that is not one is a 400 page saying so, and never a server error", async () => {
  const ana = browser();
  expect((await ana.signIn("ana@firm.example", PASSWORD)).status).toBe(303);
  for (const query of ["?kind=secrets", "?from=yesterday", "?to=2026-13-45", `?resource=${"x".repeat(101)}`, "?resource=%3Cscript%3E", "?cursor=not-a-cursor"]) {
    const { status, page } = await activity(ana, query);
    expect(status).toBe(400);
    expect(page).toContain("These filters are not valid");
  }
});

test("pages of 50, newest first, by keyset: the next page link carries the filters and continues without a gap or a repeat", async () => {
  const base = Date.now() - 3600_000;
  const entries = Array.from({ length: 60 }, (_, n) => ({ ...systemEntry(anaId, "retention.meeting_deleted", { type: "meeting", id: `mtg-page-${n}` }), at: base + n }));
  await appendAuditEntries(server.conn(), [...entries, { ...systemEntry(benId, "retention.meeting_deleted", { type: "meeting", id: "mtg-ben" }), at: base }], base);
  const ana = browser();
  expect((await ana.signIn("ana@firm.example", PASSWORD)).status).toBe(303);
  const first = await activity(ana, "?kind=retention");
  const firstRows = rowsOf(first.page);
  expect(firstRows).toHaveLength(50);
  expect(firstRows[0]).toContain("mtg-page-59");
  const next = /href="(\/settings\/activity\?[^"]+)"/.exec(first.page)![1]!.replaceAll("&amp;", "&");
  expect(next).toContain("kind=retention");
  const second = rowsOf((await activity(ana, next.slice("/settings/activity".length))).page);
  expect(second).toHaveLength(10);
  expect(second[9]).toContain("mtg-page-0");
  expect([...firstRows, ...second].join(" ")).not.toContain("mtg-ben");
});

test("in French, and only for a signed-in browser", async () => {
  const ana = browser();
  expect((await ana.signIn("ana@firm.example", PASSWORD)).status).toBe(303);
  const { page } = await activity(ana, "?kind=api_key", { "accept-language": "fr-FR,fr;q=0.9" });
  expect(page).toContain("Activité");
  expect(page).toContain("Clé d’API créée");
  const stranger = await browser().get("/settings/activity");
  expect(stranger.status).toBe(303);
  expect(stranger.headers.get("location")).toContain("/login");
});

// The account commands of `verbatim admin` the console shares its use cases with (issue 23 item 6):
// user create --link, user link, user role, user disable/enable, the last administrator kept,
// usage and status, and the audit entries they leave (credential type admin_cli, channel cli).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../helpers/query.ts";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(90_000);
const PASSWORD = "correct horse battery staple";
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.stop());

/** Sets a password through a sign-in link in a fresh browser: the form's response. */
async function useLink(url: string, password = PASSWORD) {
  const browser = new CookieClient(server.url);
  const path = new URL(url).pathname;
  const page = await browser.get(path);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? browser.cookies.get("verbatim_link_form") ?? "none";
  return { browser, response: await browser.post(path, { _csrf: csrf, password }) };
}

/**
 * A sign-in the web app refuses (issue 25's post/redirect/get): back to the sign-in form, and no
 * session. Answers the refusal's message as the form shows it.
 */
async function refusedSignIn(email: string, password = PASSWORD): Promise<string> {
  const browser = new CookieClient(server.url);
  const response = await browser.signIn(email, password);
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toStartWith("/login");
  expect(browser.cookies.has("verbatim_session")).toBe(false);
  return await (await browser.get(response.headers.get("location")!)).text();
}

/** A link no longer valid: the post goes back to the link's page, which says so (404), and signs no one in. */
async function refusedLink(url: string, password = PASSWORD): Promise<void> {
  const { browser, response } = await useLink(url, password);
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe(new URL(url).pathname);
  expect(browser.cookies.has("verbatim_session")).toBe(false);
  expect((await browser.get(new URL(url).pathname)).status).toBe(404);
}

async function listed(email: string): Promise<any> {
  const list = JSON.parse((await server.admin("user", "list", "--json")).stdout) as any[];
  return list.find((u) => u.email === email);
}

describe("roles", () => {
  test("the first-run user is an administrator; user list shows role and state", async () => {
    expect(await listed("admin@localhost")).toMatchObject({ role: "admin", disabled: false, disabled_at: null });
  });

  test("user role makes an admin and back; the last active admin is refused, with nothing changed", async () => {
    await createUserWithKey(server, "boss@firm.example", "read:meetings");
    const made = await server.admin("user", "role", "--email", "boss@firm.example", "--role", "admin", "--json");
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ email: "boss@firm.example", role: "admin" });
    expect((await server.admin("user", "role", "--email", "boss@firm.example", "--role", "user")).code).toBe(0);
    expect((await listed("boss@firm.example")).role).toBe("user");

    const last = await server.admin("user", "role", "--email", "admin@localhost", "--role", "user");
    expect(last.code).toBe(2);
    expect(last.stderr).toContain("last administrator");
    const disable = await server.admin("user", "disable", "--email", "admin@localhost");
    expect(disable.code).toBe(2);
    const remove = await server.admin("user", "delete", "--email", "admin@localhost", "--yes");
    expect(remove.code).toBe(2);
    expect(remove.stderr).toContain("last administrator");
    expect(await listed("admin@localhost")).toMatchObject({ role: "admin", disabled: false });
    expect((await server.admin("user", "role", "--email", "boss@firm.example", "--role", "owner")).code).toBe(2);
  });
});

describe("sign-in links", () => {
  test("user create --link prints a one-time link that sets the password and signs in, once", async () => {
    const created = await server.admin("user", "create", "--email", "linked@firm.example", "--link", "--public-url", `${server.url}/`, "--json");
    expect(created.code).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({ email: "linked@firm.example", role: "user" });
    expect(user.sign_in_link).toMatch(new RegExp(`^${server.url}/login/link/vl_[A-Za-z0-9]{43}$`));
    // Only the token's SHA-256 is kept.
    const token = user.sign_in_link.split("/").pop();
    const stored = await queryRows<{ token_hash: string }>(server, sql`SELECT token_hash FROM sign_in_links`);
    expect(stored.some((r) => r.token_hash === new Bun.CryptoHasher("sha256").update(token).digest("hex"))).toBe(true);
    expect(stored.some((r) => r.token_hash.includes(token))).toBe(false);

    const first = await useLink(user.sign_in_link);
    expect(first.response.status).toBe(303);
    expect((await first.browser.get("/meetings")).status).toBe(200);
    await refusedLink(user.sign_in_link, "a second password here");
  });

  test("--link needs the public URL, and not --password as well", async () => {
    const noUrl = await server.admin("user", "create", "--email", "nourl@firm.example", "--link");
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("--public-url");
    const both = await server.admin("user", "create", "--email", "both@firm.example", "--link", "--password", PASSWORD, "--public-url", server.url);
    expect(both.code).toBe(2);
    expect(await listed("nourl@firm.example")).toBeUndefined();
    expect(await listed("both@firm.example")).toBeUndefined();
  });

  test("user link resets the sign-in: sessions end, the password is cleared, only the new link works", async () => {
    expect((await server.admin("user", "create", "--email", "forgot@firm.example", "--password", PASSWORD)).code).toBe(0);
    const browser = new CookieClient(server.url);
    expect((await browser.signIn("forgot@firm.example", PASSWORD)).status).toBe(303);
    const first = JSON.parse((await server.admin("user", "link", "--email", "forgot@firm.example", "--public-url", server.url, "--json")).stdout).sign_in_link;
    const second = await server.admin("user", "link", "--email", "forgot@firm.example", "--public-url", server.url, "--link-hours", "2");
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("works for 2 h");
    const secondUrl = /(https?:\/\/\S+)/.exec(second.stdout)![1]!;
    expect((await browser.get("/meetings")).status).toBe(303);
    expect(await refusedSignIn("forgot@firm.example")).toContain("Wrong email or password.");
    // The earlier link was replaced by the newer one.
    await refusedLink(first);
    expect((await useLink(secondUrl)).response.status).toBe(303);
    expect((await server.admin("user", "link", "--email", "forgot@firm.example", "--public-url", server.url, "--link-hours", "0")).code).toBe(2);
  });
});

describe("disable and enable", () => {
  test("a disabled user's key is refused (401) and their session ends; enable restores the key", async () => {
    const key = await createUserWithKey(server, "paused@firm.example", "read:meetings");
    expect((await server.admin("user", "password", "--email", "paused@firm.example", "--password", PASSWORD)).code).toBe(0);
    const browser = new CookieClient(server.url);
    expect((await browser.signIn("paused@firm.example", PASSWORD)).status).toBe(303);
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);

    const disabled = await server.admin("user", "disable", "--email", "paused@firm.example", "--json");
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ disabled: true });
    // The running server's key cache notices the other process's commit at once.
    expect((await server.api("/api/v1/me", { key })).status).toBe(401);
    expect((await browser.get("/meetings")).status).toBe(303);
    expect(await refusedSignIn("paused@firm.example")).toContain("Wrong email or password.");

    expect((await server.admin("user", "enable", "--email", "paused@firm.example")).code).toBe(0);
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
    expect((await listed("paused@firm.example")).disabled).toBe(false);
  });
});

describe("usage, status and the audit trail", () => {
  test("usage --json covers the months asked, and refuses a bad range", async () => {
    const usage = await server.admin("usage", "--from", "2026-01", "--to", "2026-03", "--json");
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject({ from: "2026-01", to: "2026-03", data: [] });
    expect((await server.admin("usage", "--from", "2026-04", "--to", "2026-01")).code).toBe(2);
    expect((await server.admin("usage", "--from", "2020-01", "--to", "2026-01")).code).toBe(2);
  });

  test("status --json names the stand-in models, the disk and the queue", async () => {
    // As the server under test runs: the development stand-ins (startServer sets the same profile).
    const status = await server.admin("status", "--models-profile", "stand-in", "--json");
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout);
    expect(parsed.models.length).toBeGreaterThan(0);
    // The speech and language models are stand-ins; the VAD model is the real one, also in development.
    expect(parsed.models.find((m: any) => m.role === "whisper")).toMatchObject({ state: "ok", standIn: true });
    expect(parsed.models.find((m: any) => m.role === "llm")).toMatchObject({ state: "ok", standIn: true });
    expect(parsed.models.find((m: any) => m.role === "vad")).toMatchObject({ standIn: false });
    expect(parsed.disks[0]).toMatchObject({ path: "data" });
    expect(parsed.disks[0].totalBytes).toBeGreaterThan(0);
    expect(Array.isArray(parsed.queue)).toBe(true);
    expect(parsed.nodes.length).toBeGreaterThan(0);
  });

  test("each command's change is in the audit trail as admin_cli on channel cli, under the account", async () => {
    const rows = await queryRows<{ action: string; account_id: string; credential_type: string; channel: string; actor_user_id: string | null }>(
      server,
      sql`SELECT action, account_id, credential_type, channel, actor_user_id FROM audit_entries WHERE action LIKE 'user.%'`,
    );
    const paused = (await listed("paused@firm.example")).id;
    const of = (action: string) => rows.filter((r) => r.action === action && r.account_id === paused);
    expect(of("user.disabled")).toHaveLength(1);
    expect(of("user.enabled")).toHaveLength(1);
    expect(of("user.disabled")[0]).toMatchObject({ credential_type: "admin_cli", channel: "cli", actor_user_id: null });
    expect(rows.filter((r) => r.action === "user.created").length).toBeGreaterThanOrEqual(3);
    expect(rows.some((r) => r.action === "user.sign_in_reset")).toBe(true);
    expect(rows.some((r) => r.action === "user.role_changed")).toBe(true);
  });
});

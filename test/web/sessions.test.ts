// Web app sessions end over real HTTP (issue 20, item 13): after 7 days without use, after 30 days
// however active, and the retention sweep deletes their rows. Time is moved by editing the
// session's row in the server's database, as a week passing would leave it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { webSessions } from "../../src/auth/table.ts";
import { run, type DbConn } from "../../src/db/conn.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);

const PASSWORD = "correct horse battery";
const DAY = 24 * 3600_000;
let server: TestServer;
/** The server's database, to move a session's times as days passing would. */
let conn: DbConn;

beforeAll(async () => {
  server = await startServer({ args: ["--sweep-interval", "1"] });
  conn = server.conn();
  const made = await server.admin("user", "create", "--email", "partner@firm.example", "--plan", "pro", "--password", PASSWORD);
  if (made.code !== 0) throw new Error(made.stderr);
});
afterAll(() => server.stop());

/** A signed-in browser and the hash its session row is stored under. */
async function signedIn(): Promise<{ browser: CookieClient; tokenHash: string }> {
  const browser = new CookieClient(server.url);
  expect((await browser.signIn("partner@firm.example", PASSWORD)).status).toBe(303);
  const token = browser.cookies.get("verbatim_session")!;
  return { browser, tokenHash: createHash("sha256").update(token).digest("hex") };
}

async function setRow(tokenHash: string, columns: { lastSeenAt?: number; expiresAt?: number; createdAt?: number }): Promise<void> {
  await run(conn, (q) => q.update(webSessions).set(columns).where(eq(webSessions.tokenHash, tokenHash)));
}

async function row(tokenHash: string): Promise<{ created_at: number; last_seen_at: number; expires_at: number } | null> {
  const found = await run(conn, (q) =>
    q
      .select({ created_at: webSessions.createdAt, last_seen_at: webSessions.lastSeenAt, expires_at: webSessions.expiresAt })
      .from(webSessions)
      .where(eq(webSessions.tokenHash, tokenHash)),
  );
  return found[0] ?? null;
}

/** 200 when the session still opens the meetings list; 303 (to /login) when it has ended. */
const meetingsStatus = async (browser: CookieClient) => (await browser.get("/meetings")).status;

test("a session unused for 7 days has ended; one unused for a little less still works", async () => {
  const idle = await signedIn();
  const recent = await signedIn();
  const now = Date.now();
  await setRow(idle.tokenHash, { lastSeenAt: now - 7 * DAY - 60_000 });
  await setRow(recent.tokenHash, { lastSeenAt: now - 7 * DAY + 60_000 });
  expect(await meetingsStatus(idle.browser)).toBe(303);
  expect(await meetingsStatus(recent.browser)).toBe(200);
  // Using it moved its last use to now: it has another 7 days.
  expect((await row(recent.tokenHash))!.last_seen_at).toBeGreaterThanOrEqual(now);
});

test("a session lives 30 days at most, however active", async () => {
  const session = await signedIn();
  const created = (await row(session.tokenHash))!;
  expect(created.expires_at - created.created_at).toBe(30 * DAY);
  const cookie = (await new CookieClient(server.url).signIn("partner@firm.example", PASSWORD)).headers.getSetCookie().find((c) => c.startsWith("verbatim_session="))!;
  expect(cookie).toContain(`Max-Age=${30 * 24 * 3600}`);
  // In use a minute ago, but past its end.
  const now = Date.now();
  await setRow(session.tokenHash, { createdAt: now - 30 * DAY - 60_000, lastSeenAt: now - 60_000, expiresAt: now - 60_000 });
  expect(await meetingsStatus(session.browser)).toBe(303);
});

test("the retention sweep deletes the rows of ended sessions and keeps live ones", async () => {
  const idle = await signedIn();
  const expired = await signedIn();
  const live = await signedIn();
  const now = Date.now();
  await setRow(idle.tokenHash, { lastSeenAt: now - 7 * DAY - 60_000 });
  await setRow(expired.tokenHash, { expiresAt: now - 60_000 });
  const deadline = Date.now() + 30_000;
  while (((await row(idle.tokenHash)) || (await row(expired.tokenHash))) && Date.now() < deadline) await Bun.sleep(200);
  expect(await row(idle.tokenHash)).toBeNull();
  expect(await row(expired.tokenHash)).toBeNull();
  expect(await row(live.tokenHash)).not.toBeNull();
  expect(await meetingsStatus(live.browser)).toBe(200);
});

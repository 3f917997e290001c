// Test pings obey the delivery bounds (issue 20, item 5): POST /v1/webhook_endpoints/{id}/test and
// the web app's test button queue their pings under the same limits as every delivery (8 in flight
// overall, 2 per endpoint), counted at a receiver that holds each connection open a while, and an
// endpoint gets at most 20 test pings per 60 s: beyond, 429 rate_limited with Retry-After, in the
// API and in the web app alike (one window for both).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createUserWithKey, expectProblem, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

setDefaultTimeout(90_000);

const PASSWORD = "correct horse battery";
/** How long the receiver holds each request: long enough for pings to overlap, short of the 10 s deadline. */
const HOLD_MS = 700;
let server: TestServer;
let receiver: Receiver;
let key: string;

beforeAll(async () => {
  receiver = startReceiver();
  receiver.answer(async () => {
    await Bun.sleep(HOLD_MS);
    return new Response("ok");
  });
  server = await startServer({
    args: ["--rate-limits", "pro=100000,anonymous=100000", "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE],
  });
  key = await createUserWithKey(server, "pinger@firm.example");
  await server.admin("user", "password", "--email", "pinger@firm.example", "--password", PASSWORD);
});
afterAll(async () => {
  await server.stop();
  receiver.stop();
});

async function endpointAt(path: string): Promise<string> {
  const response = await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: receiver.url + path, events: ["*"] } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

const ping = (endpointId: string) => server.api(`/api/v1/webhook_endpoints/${endpointId}/test`, { method: "POST", key });

async function arrivedAt(path: string, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receiver.received.filter((r) => r.path === path).length < count) {
    if (Date.now() > deadline) throw new Error(`${path} got ${receiver.received.filter((r) => r.path === path).length} of ${count} pings`);
    await Bun.sleep(50);
  }
}

describe("test pings", () => {
  test("30 pings at once to one endpoint: never more than 2 connections to it; 20 are queued and sent, 10 answer 429 with Retry-After", async () => {
    const id = await endpointAt("/one");
    const responses = await Promise.all(Array.from({ length: 30 }, () => ping(id)));
    const accepted = responses.filter((r) => r.status === 202);
    const refused = responses.filter((r) => r.status !== 202);
    expect(accepted).toHaveLength(20);
    expect(refused).toHaveLength(10);
    for (const response of refused) {
      const problem = await expectProblem(response, 429, "rate_limited");
      expect(problem.detail).toContain("test pings");
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // Every accepted ping arrives, two at a time at most.
    await arrivedAt("/one", 20);
    expect(receiver.peakOpen.byPath.get("/one")).toBe(2);
    expect(receiver.peakOpen.overall).toBeLessThanOrEqual(8);
    const log = (await (await server.api(`/api/v1/webhook_endpoints/${id}/deliveries?limit=100`, { key })).json()) as { data: { status: string }[] };
    expect(log.data).toHaveLength(20);

    // The web app's test button counts in the same window: refused back to the page it was pressed on
    // (issue 25's post/redirect/get), with Retry-After, the page saying when to try again.
    const client = new CookieClient(server.url);
    await client.signIn("pinger@firm.example", PASSWORD);
    const csrf = await client.csrfToken("/settings/webhooks");
    const pressed = await client.post(`/settings/webhooks/${id}/test`, { _csrf: csrf }, { referer: `${server.url}/settings/webhooks`, accept: "text/html" });
    expect(pressed.status).toBe(303);
    expect(Number(pressed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await (await client.follow(pressed)).text()).toMatch(/Try again in \d+ seconds/);
    await Bun.sleep(HOLD_MS * 2);
    expect(receiver.received.filter((r) => r.path === "/one")).toHaveLength(20);
  });

  test("30 pings over 5 endpoints at once: at most 8 connections overall and 2 per endpoint; all 30 arrive", async () => {
    const paths = ["/a", "/b", "/c", "/d", "/e"];
    const ids = await Promise.all(paths.map(endpointAt));
    const responses = await Promise.all(ids.flatMap((id) => Array.from({ length: 6 }, () => ping(id))));
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(202));
    for (const path of paths) await arrivedAt(path, 6);
    expect(receiver.peakOpen.overall).toBeLessThanOrEqual(8);
    for (const path of paths) expect(receiver.peakOpen.byPath.get(path)).toBeLessThanOrEqual(2);
    // The bounds were reached, not merely respected by a trickle.
    expect(receiver.peakOpen.overall).toBeGreaterThanOrEqual(4);
  });
});

// The webhooks use cases against a real migrated database on a temp data dir, no HTTP: each
// use case's checks, its rows, and what it tells the delivery thread (wake, send now).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Actor } from "../auth/actor.ts";
import { addUser } from "../auth/user-store.ts";
import { recordEvent } from "../events/store.ts";
import { run } from "../db/conn.ts";
import { events } from "../events/table.ts";
import { IdempotencyStore } from "../idempotency/service.ts";
import { parseEgressAllow } from "../net/egress.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { MAX_ENDPOINTS_PER_ACCOUNT, webhooksApp } from "./app.ts";
import { queueDelivery } from "./delivery-store.ts";
import { fanOutEvents } from "./fanout.ts";
import { PingThrottle } from "./ping.ts";
import { webhookDeliveries } from "./table.ts";

let database: TempDatabase;
let now = Date.parse("2026-11-24T12:00:00Z");
const clock = { now: () => now };
let told: { wake: number; sendNow: string[]; walTruncations: number; lookups: string[] };
let owner: Actor;
let stranger: Actor;

function actorOf(userId: string): Actor {
  return { account: { userId, plan: "pro" }, channel: "api", credential: { type: "api_key", id: "key_test", name: null, scopes: ["webhooks"], expiresAt: null } };
}

/** hooks.example resolves to a public address, private.example to a private one. */
function app(pingsPerWindow = 20) {
  return webhooksApp({
    conn: database.conn,
    clock,
    egress: parseEgressAllow(""),
    resolve: async (host) => {
      told.lookups.push(host);
      return host === "private.example" ? ["10.0.0.7"] : ["93.184.216.34"];
    },
    idempotency: new IdempotencyStore(database.conn, clock),
    wal: { afterDeletion: () => void told.walTruncations++ },
    dispatcher: { wake: () => void told.wake++, sendNow: (id) => void told.sendNow.push(id) },
    pings: new PingThrottle(pingsPerWindow),
  });
}

const body = (url = "https://hooks.example/in") => ({ url, events: ["processing.completed" as const], description: "CRM" });

beforeEach(async () => {
  database = tempDatabase("webhooks-app");
  owner = actorOf((await addUser(database.conn, { email: `owner-${crypto.randomUUID()}@firm.example`, plan: "pro" })).id);
  stranger = actorOf((await addUser(database.conn, { email: `other-${crypto.randomUUID()}@firm.example`, plan: "pro" })).id);
  told = { wake: 0, sendNow: [], walTruncations: 0, lookups: [] };
});
afterEach(async () => {
  await database.remove();
});

describe("createEndpoint", () => {
  test("registers an enabled endpoint and answers its secret this once", async () => {
    const created = await app().createEndpoint(owner, body());
    expect(created).toMatchObject({ status: 201, replayed: false });
    expect(created.body).toMatchObject({ object: "webhook_endpoint", url: "https://hooks.example/in", events: ["processing.completed"], description: "CRM", enabled: true });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9]{43}$/);
    expect(created.body.secret_hint).toBe(`whsec_...${created.body.secret.slice(-4)}`);
    expect((await app().list(owner)).map((row) => row.id)).toEqual([created.body.id]);
  });

  test("a URL resolving to a private address is refused (400 on url), creating nothing", async () => {
    const refused = app().createEndpoint(owner, body("https://private.example/in"));
    await expect(refused).rejects.toMatchObject({ status: 400, errors: [{ field: "url", code: "address_not_allowed" }] });
    expect(await app().list(owner)).toEqual([]);
  });

  test(`at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints an account; the limit rolls nothing in`, async () => {
    for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++) await app().createEndpoint(owner, body(`https://hooks.example/${i}`));
    await expect(app().createEndpoint(owner, body())).rejects.toMatchObject({ errors: [{ code: "too_many_endpoints" }] });
    expect(await app().list(owner)).toHaveLength(MAX_ENDPOINTS_PER_ACCOUNT);
    // Another account has its own count.
    await app().createEndpoint(stranger, body());
  });

  test("with an Idempotency-Key a retry replays the first answer, secret included, creating nothing", async () => {
    const first = await app().createEndpoint(owner, body(), { idempotencyKey: "key-1" });
    const again = await app().createEndpoint(owner, body(), { idempotencyKey: "key-1" });
    expect(again).toEqual({ ...first, replayed: true });
    expect(await app().list(owner)).toHaveLength(1);
  });
});

describe("get, list", () => {
  test("another account's endpoint is not found, and is not listed", async () => {
    const created = await app().createEndpoint(owner, body());
    expect((await app().get(owner, created.body.id)).url).toBe("https://hooks.example/in");
    await expect(app().get(stranger, created.body.id)).rejects.toMatchObject({ status: 404 });
    expect(await app().list(stranger)).toEqual([]);
  });
});

describe("update", () => {
  test("changes url, events and description; an unknown endpoint is 404 before any DNS lookup", async () => {
    const created = await app().createEndpoint(owner, body());
    told.lookups = [];
    await expect(app().update(stranger, created.body.id, { url: "https://hooks.example/new" })).rejects.toMatchObject({ status: 404 });
    expect(told.lookups).toEqual([]);
    const updated = await app().update(owner, created.body.id, { url: "https://hooks.example/new", events: ["*", "*"], description: null });
    expect(updated).toMatchObject({ url: "https://hooks.example/new", events: ["*"], description: null });
    expect(told.lookups).toEqual(["hooks.example"]);
    await expect(app().update(owner, created.body.id, { url: "https://private.example/in" })).rejects.toMatchObject({ status: 400 });
    expect(told.wake).toBe(0);
  });

  test("disabling parks the endpoint's unfinished deliveries; enabling clears its failures, makes them due and wakes the thread", async () => {
    const created = await app().createEndpoint(owner, body());
    const event = await recordEvent(database.conn, { userId: owner.account.userId, type: "processing.completed", now, object: {} });
    const delivery = await queueDelivery(database.conn, { userId: owner.account.userId, endpointId: created.body.id, eventId: event.id, eventType: event.type, now });
    const due = async () => (await run(database.conn, (q) => q.select().from(webhookDeliveries))).find((row) => row.id === delivery.id)!.nextAttemptAt;

    const disabled = await app().update(owner, created.body.id, { enabled: false });
    expect(disabled).toMatchObject({ enabled: false, disabledReason: null });
    expect(await due()).toBeNull();
    expect(told.wake).toBe(0);

    now += 1000;
    const enabled = await app().update(owner, created.body.id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 });
    expect(await due()).toBe(now);
    expect(told.wake).toBe(1);
  });
});

describe("rotateSecret", () => {
  test("a new secret; the previous one is kept for 24 hours", async () => {
    const created = await app().createEndpoint(owner, body());
    const rotated = await app().rotateSecret(owner, created.body.id);
    expect(rotated.secret).not.toBe(created.body.secret);
    expect(rotated).toMatchObject({ previousSecret: created.body.secret, previousSecretExpiresAt: now + 24 * 60 * 60 * 1000 });
    await expect(app().rotateSecret(stranger, created.body.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("delete", () => {
  test("removes the endpoint and its delivery log, then truncates the WAL; another account's is 404", async () => {
    const created = await app().createEndpoint(owner, body());
    const event = await recordEvent(database.conn, { userId: owner.account.userId, type: "processing.completed", now, object: {} });
    await fanOutEvents(database.conn, now);
    expect((await run(database.conn, (q) => q.select().from(webhookDeliveries))).map((row) => row.eventId)).toEqual([event.id]);
    await expect(app().delete(stranger, created.body.id)).rejects.toMatchObject({ status: 404 });
    expect(told.walTruncations).toBe(0);
    await app().delete(owner, created.body.id);
    expect(await app().list(owner)).toEqual([]);
    expect(await run(database.conn, (q) => q.select().from(webhookDeliveries))).toEqual([]);
    expect(told.walTruncations).toBe(1);
  });
});

describe("ping", () => {
  test("queues a ping to this endpoint only (its event already fanned out) and asks the thread to send it now", async () => {
    const created = await app().createEndpoint(owner, body());
    const delivery = await app().ping(owner, created.body.id);
    expect(delivery).toMatchObject({ endpointId: created.body.id, eventType: "ping", status: "pending", nextAttemptAt: now });
    expect(told.sendNow).toEqual([delivery.id]);
    const [event] = await run(database.conn, (q) => q.select().from(events));
    expect(event).toMatchObject({ id: delivery.eventId, type: "ping", fannedOutAt: now });
    expect(JSON.parse(event!.payload).data.object).toEqual({ object: "ping", message: `Test event for webhook endpoint ${created.body.id}.`, endpoint_id: created.body.id });
    expect(await fanOutEvents(database.conn, now)).toBe(0);
  });

  test("past the pings of a window: 429 rate_limited with Retry-After, nothing queued; another account's endpoint is 404", async () => {
    const hooks = app(2);
    const created = await hooks.createEndpoint(owner, body());
    await hooks.ping(owner, created.body.id);
    await hooks.ping(owner, created.body.id);
    const refused = hooks.ping(owner, created.body.id);
    await expect(refused).rejects.toMatchObject({ code: "rate_limited", status: 429 });
    await refused.catch((error) => expect(error.headers["Retry-After"]).toMatch(/^\d+$/));
    expect(told.sendNow).toHaveLength(2);
    await expect(hooks.ping(stranger, created.body.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("deliveries", () => {
  test("the endpoint and its deliveries, newest first, a page at a time", async () => {
    const created = await app().createEndpoint(owner, body());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      now += 1000;
      ids.push((await app().ping(owner, created.body.id)).id);
    }
    const first = await app().deliveries(owner, created.body.id, { limit: 2 });
    expect(first.endpoint.id).toBe(created.body.id);
    expect(first.page.data.map((row) => row.id)).toEqual(ids.slice(1).reverse());
    expect(first.page.has_more).toBe(true);
    const second = await app().deliveries(owner, created.body.id, { limit: 2, cursor: first.page.next_cursor! });
    expect(second.page).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.page.data.map((row) => row.id)).toEqual(ids.slice(0, 1));
    await expect(app().deliveries(stranger, created.body.id, { limit: 2 })).rejects.toMatchObject({ status: 404 });
  });
});

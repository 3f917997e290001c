// Webhooks over real HTTP (SPEC 4 Webhook endpoints, SPEC 6; issue 11): endpoint CRUD and its
// refusals, signed deliveries of real events to an HTTPS receiver on loopback (trusted through
// --ca-file), the test ping, disabling after 15 failures with the owner told by email (a local SMTP
// server), re-enabling, and no delivery lost across a kill -9. The schedule itself is tested with
// an injected clock in src/webhooks/dispatcher.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { verifySignature } from "../../scripts/webhook-receiver.ts";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const mails: { to: string[]; text: string }[] = [];
let smtp: SMTPServer;
let smtpPort: number;
let server: TestServer;
let key: string;
let receiver: Receiver;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    onData(stream, session, callback) {
      let text = "";
      stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  smtpPort = (smtp.server.address() as { port: number }).port;
  receiver = startReceiver();
  server = await startServer({
    args: [
      "--engines", "test/doubles/engines.ts",
      "--rate-limits", "pro=100000",
      "--egress-allow", "127.0.0.1",
      "--ca-file", LOOPBACK_CA_FILE,
      "--smtp-url", `smtp://127.0.0.1:${smtpPort}`,
      "--smtp-from", "Verbatim <verbatim@firm.example>",
    ],
    env: { TEST_ENGINE_BEHAVIOR: "" },
  });
  key = await createUserWithKey(server, "hooks@firm.example");
});
afterAll(async () => {
  await server.stop();
  receiver.stop();
  smtp.close();
});

function create(body: unknown, as = key, headers: Record<string, string> = {}) {
  return server.api("/api/v1/webhook_endpoints", { method: "POST", key: as, json: body, headers });
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not there: ${JSON.stringify(value).slice(0, 500)}`);
    await Bun.sleep(50);
  }
}

describe("endpoints", () => {
  test("create (201, the secret once), read, list, update and delete; the secret never again but as its hint", async () => {
    const response = await create({ url: `${receiver.url}/crud`, events: ["processing.completed"], description: "CRM" });
    expect(response.status).toBe(201);
    const created = (await response.json()) as any;
    expect(created).toMatchObject({ object: "webhook_endpoint", url: `${receiver.url}/crud`, events: ["processing.completed"], description: "CRM", enabled: true, disabled_reason: null, consecutive_failures: 0 });
    expect(created.id).toMatch(/^we_\w+$/);
    expect(created.secret).toMatch(/^whsec_[0-9A-Za-z]{43}$/);
    expect(created.secret_hint).toBe(`whsec_...${created.secret.slice(-4)}`);

    const one = (await (await server.api(`/api/v1/webhook_endpoints/${created.id}`, { key })).json()) as any;
    expect(one.secret).toBeUndefined();
    expect(one.secret_hint).toBe(created.secret_hint);
    const list = (await (await server.api("/api/v1/webhook_endpoints", { key })).json()) as any;
    expect(list.data.map((e: any) => e.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.secret);

    const patched = await server.api(`/api/v1/webhook_endpoints/${created.id}`, { method: "PATCH", key, json: { events: ["*"], description: null } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ events: ["*"], description: null });

    const rotated = (await (await server.api(`/api/v1/webhook_endpoints/${created.id}/rotate_secret`, { method: "POST", key })).json()) as any;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);

    expect((await server.api(`/api/v1/webhook_endpoints/${created.id}`, { method: "DELETE", key })).status).toBe(204);
    await expectProblem(await server.api(`/api/v1/webhook_endpoints/${created.id}`, { key }), 404, "not_found");
  });

  test("another account's endpoint is not found; without the webhooks scope, 403", async () => {
    const created = (await (await create({ url: receiver.url, events: ["*"] })).json()) as any;
    const other = await createUserWithKey(server, "other-hooks@firm.example");
    await expectProblem(await server.api(`/api/v1/webhook_endpoints/${created.id}`, { key: other }), 404, "not_found");
    await expectProblem(await server.api(`/api/v1/webhook_endpoints/${created.id}/deliveries`, { key: other }), 404, "not_found");
    const noScope = await createUserWithKey(server, "noscope-hooks@firm.example", "read:meetings");
    await expectProblem(await server.api("/api/v1/webhook_endpoints", { key: noScope }), 403, "insufficient_scope");
    await server.api(`/api/v1/webhook_endpoints/${created.id}`, { method: "DELETE", key });
  });

  test("Idempotency-Key: the replay returns the same endpoint (and secret), creating nothing", async () => {
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = (await (await create({ url: `${receiver.url}/idem`, events: ["*"] }, key, headers)).json()) as any;
    const again = await create({ url: `${receiver.url}/idem`, events: ["*"] }, key, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).id).toBe(first.id);
    const list = (await (await server.api("/api/v1/webhook_endpoints", { key })).json()) as any;
    expect(list.data.filter((e: any) => e.url === `${receiver.url}/idem`)).toHaveLength(1);
    await server.api(`/api/v1/webhook_endpoints/${first.id}`, { method: "DELETE", key });
  });

  test("bad bodies: not a URL, unknown or empty events, ping as a subscription", async () => {
    await expectProblem(await create({ url: "not a url", events: ["*"] }), 400, "validation_error");
    await expectProblem(await create({ url: receiver.url, events: [] }), 400, "validation_error");
    await expectProblem(await create({ url: receiver.url, events: ["meeting.exploded"] }), 400, "validation_error");
    await expectProblem(await create({ url: receiver.url, events: ["ping"] }), 400, "validation_error");
  });
});

describe("address guard (a service without --egress-allow)", () => {
  let guarded: TestServer;
  let guardedKey: string;
  beforeAll(async () => {
    guarded = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000"] });
    guardedKey = await createUserWithKey(guarded, "ssrf@firm.example");
  });
  afterAll(() => guarded.stop());

  test("loopback, private, link-local (cloud metadata) and IPv6 loopback URLs are refused, as is a name resolving to loopback", async () => {
    for (const url of ["https://127.0.0.1/hook", "https://10.1.2.3/hook", "https://169.254.169.254/latest/meta-data", "https://[::1]/hook", "https://localhost/hook", "https://192.168.1.10/hook"]) {
      const response = await guarded.api("/api/v1/webhook_endpoints", { method: "POST", key: guardedKey, json: { url, events: ["*"] } });
      const problem = await expectProblem(response, 400, "validation_error");
      expect({ url, errors: problem.errors }).toEqual({ url, errors: [expect.objectContaining({ field: "url", code: "address_not_allowed" })] });
    }
    const http = await guarded.api("/api/v1/webhook_endpoints", { method: "POST", key: guardedKey, json: { url: "http://10.1.2.3/hook", events: ["*"] } });
    const problem = await expectProblem(http, 400, "validation_error");
    expect((problem.errors as any[])[0].field).toBe("url");
    const list = (await (await guarded.api("/api/v1/webhook_endpoints", { key: guardedKey })).json()) as any;
    expect(list.data).toEqual([]);
  });
});

describe("deliveries", () => {
  test("a processed meeting's events arrive signed, with the client's metadata; the delivery log shows them", async () => {
    const path = `/events-${crypto.randomUUID()}`;
    const endpoint = (await (await create({ url: receiver.url + path, events: ["transcription.completed", "processing.completed"] })).json()) as any;
    const form = new FormData();
    form.append("file", Bun.file(FIXTURE), "m.wav");
    form.append("metadata", JSON.stringify({ matter: "A-17" }));
    const meeting = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
    const arrived = await eventually(
      async () => receiver.received.filter((r) => r.path === path),
      (list) => list.length >= 2,
    );
    const types = arrived.map((r) => r.headers.get("verbatim-event-type")).sort();
    expect(types).toEqual(["processing.completed", "transcription.completed"]);
    for (const r of arrived) {
      expect(verifySignature(r.body, r.headers.get("verbatim-signature"), [endpoint.secret])).toBe(true);
      const event = JSON.parse(r.body);
      expect(event).toMatchObject({ object: "event", livemode: true, id: r.headers.get("verbatim-event-id") });
      expect(event.data.object).toMatchObject({ object: "job", meeting_id: meeting.id, metadata: { matter: "A-17" } });
    }
    const log = await eventually(
      async () => (await (await server.api(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key })).json()) as any,
      (page) => page.data.length === 2 && page.data.every((d: any) => d.status === "succeeded"),
    );
    expect(log.data[0]).toMatchObject({ object: "webhook_delivery", endpoint_id: endpoint.id, attempts: 1, response_status: 200, response_body_excerpt: "ok", error: null, next_retry_at: null });
    expect(log.data[0].duration_ms).toBeGreaterThanOrEqual(0);
    await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", key });
  });

  test("POST .../test sends a signed ping now and answers 202 with its delivery", async () => {
    const path = `/ping-${crypto.randomUUID()}`;
    const endpoint = (await (await create({ url: receiver.url + path, events: ["*"] })).json()) as any;
    const response = await server.api(`/api/v1/webhook_endpoints/${endpoint.id}/test`, { method: "POST", key });
    expect(response.status).toBe(202);
    const delivery = (await response.json()) as any;
    expect(delivery).toMatchObject({ object: "webhook_delivery", endpoint_id: endpoint.id, event_type: "ping" });
    expect(delivery.id).toMatch(/^whd_/);
    const [ping] = await eventually(async () => receiver.received.filter((r) => r.path === path), (list) => list.length === 1);
    expect(ping!.headers.get("verbatim-delivery-id")).toBe(delivery.id);
    expect(ping!.headers.get("verbatim-event-type")).toBe("ping");
    expect(JSON.parse(ping!.body).data.object.message).toContain(endpoint.id);
    expect(verifySignature(ping!.body, ping!.headers.get("verbatim-signature"), [endpoint.secret])).toBe(true);
    await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", key });
  });

  test("15 failed deliveries in a row disable the endpoint and email its owner; PATCH enabled true re-enables it", async () => {
    const path = `/failing-${crypto.randomUUID()}`;
    receiver.answer((request) => (new URL(request.url).pathname === path ? new Response("broken", { status: 500 }) : new Response("ok")));
    const endpoint = (await (await create({ url: receiver.url + path, events: ["*"] })).json()) as any;
    for (let i = 0; i < 15; i++) {
      expect((await server.api(`/api/v1/webhook_endpoints/${endpoint.id}/test`, { method: "POST", key })).status).toBe(202);
      await eventually(async () => receiver.received.filter((r) => r.path === path).length, (n) => n === i + 1);
    }
    const disabled = await eventually(
      async () => (await (await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { key })).json()) as any,
      (e) => e.enabled === false,
    );
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: "too_many_failures", consecutive_failures: 15 });
    const mail = await eventually(async () => mails.find((m) => m.text.includes(endpoint.id)), (m) => m !== undefined);
    expect(mail!.to).toEqual(["hooks@firm.example"]);
    expect(mail!.text).toContain("disabled");
    expect(mail!.text).not.toContain(endpoint.secret);

    const deliveries = (await (await server.api(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries?limit=2`, { key })).json()) as any;
    expect(deliveries.data[0]).toMatchObject({ status: "retrying", response_status: 500, response_body_excerpt: "broken", error: "HTTP 500" });
    // Waiting for the endpoint to be enabled again: no retry time while it is disabled.
    expect(deliveries.data[0].next_retry_at).toBeNull();
    expect(deliveries.has_more).toBe(true);

    receiver.answer(() => new Response("ok"));
    const enabled = await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { method: "PATCH", key, json: { enabled: true } });
    expect(await enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    // The 15 pings that failed are due again at once, and now succeed.
    await eventually(async () => receiver.received.filter((r) => r.path === path).length, (n) => n === 30);
    await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", key });
  });
});

describe("durability", () => {
  test("a delivery in flight when the service is killed (-9) is sent again after the restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "verbatim-hooks-kill-"));
    const held = startReceiver();
    const args = ["--engines", "test/doubles/engines.ts", "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE];
    try {
      // The receiver holds the first request without answering, so the delivery is in flight at the kill.
      let release: () => void = () => {};
      held.answer(() => new Promise<Response>((resolve) => (release = () => resolve(new Response("late")))));
      const first = await startServer({ args, dataDir });
      const k = await createUserWithKey(first, "durable@firm.example");
      const endpoint = (await (await first.api("/api/v1/webhook_endpoints", { method: "POST", key: k, json: { url: held.url, events: ["*"] } })).json()) as any;
      const ping = (await (await first.api(`/api/v1/webhook_endpoints/${endpoint.id}/test`, { method: "POST", key: k })).json()) as any;
      await held.waitFor(1);
      await first.stop("SIGKILL");
      held.answer(() => new Response("ok"));
      release();

      const second = await startServer({ args, dataDir });
      try {
        const [, again] = await held.waitFor(2);
        expect(again!.headers.get("verbatim-delivery-id")).toBe(ping.id);
        expect(again!.headers.get("verbatim-event-id")).toBe(held.received[0]!.headers.get("verbatim-event-id"));
        const log = await eventually(
          async () => (await (await second.api(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries`, { key: k })).json()) as any,
          (page) => page.data[0]?.status === "succeeded",
        );
        expect(log.data).toHaveLength(1);
      } finally {
        await second.stop();
      }
    } finally {
      held.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

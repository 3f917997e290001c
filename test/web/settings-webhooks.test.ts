// Settings, Webhooks and Usage in the web app over real HTTP (issue 14): an endpoint added from the
// page shows its secret once, the test button sends a signed ping the receiver can verify, a
// rotation shows the new secret and both sign for a day, the delivery log lists the ping, another
// account reaches none of it, and the usage page lists the month's ledger of both channels.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { verifySignature } from "../../scripts/webhook-receiver.ts";
import type { DbConn } from "../../src/db/conn.ts";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";
import { needlesKept } from "../support/postgres-scan.ts";

setDefaultTimeout(60_000);
type Json = any;

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const PASSWORD = "correct horse battery";
let server: TestServer;
/** The server's database, where (on PostgreSQL) the endpoint's secrets and URL are looked for after its deletion. */
let conn: DbConn;
let receiver: Receiver;
let key: string;

beforeAll(async () => {
  receiver = startReceiver();
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE],
  });
  conn = server.conn();
  key = await createUserWithKey(server, "integrator@firm.example");
  await createUserWithKey(server, "nosy@firm.example");
  for (const email of ["integrator@firm.example", "nosy@firm.example"]) await server.admin("user", "password", "--email", email, "--password", PASSWORD);
});
afterAll(async () => {
  await server.stop();
  receiver.stop();
});

async function signedIn(email = "integrator@firm.example") {
  const client = new CookieClient(server.url);
  await client.signIn(email, PASSWORD);
  return { client, csrf: await client.csrfToken("/settings/webhooks") };
}

const shownSecret = (page: string) => /id="shown-once"[^>]* value="(whsec_\w+)"/.exec(page)?.[1];

describe("webhooks in Settings", () => {
  test("add an endpoint (secret shown once), send a signed test ping, rotate the secret, read the delivery log", async () => {
    const { client, csrf } = await signedIn();
    const refused = await client.post("/settings/webhooks", new URLSearchParams([["_csrf", csrf], ["url", "ftp://example.org/x"], ["event", "*"]]));
    // Issue 25: a refusal comes back to the form (303, post/redirect/get), the URL kept and the message at it.
    expect(refused.status).toBe(303);
    const again = await (await client.follow(refused)).text();
    expect(again).toContain('value="ftp://example.org/x"');
    expect(again).toContain("This address is not reachable from the server: use a public https URL");
    const created = await client.post("/settings/webhooks", new URLSearchParams([["_csrf", csrf], ["url", `${receiver.url}/from-settings`], ["event", "*"], ["description", "CRM"]]));
    // The secret is shown once, on the page the form redirects to; never again.
    expect(created.status).toBe(303);
    const secret = shownSecret(await (await client.follow(created)).text())!;
    expect(secret).toStartWith("whsec_");
    const listed = await (await client.get("/settings/webhooks")).text();
    expect(listed).toContain(`${receiver.url}/from-settings`);
    expect(listed).not.toContain(secret);
    const endpoint = ((await (await server.api("/api/v1/webhook_endpoints", { key })).json()) as Json).data[0];
    expect(endpoint).toMatchObject({ url: `${receiver.url}/from-settings`, events: ["*"], description: "CRM" });

    const tested = await client.post(`/settings/webhooks/${endpoint.id}/test`, { _csrf: csrf });
    expect(tested.status).toBe(303);
    const [ping] = await receiver.waitFor(1);
    expect(ping!.path).toBe("/from-settings");
    expect(ping!.headers.get("verbatim-event-type")).toBe("ping");
    expect(verifySignature(ping!.body, ping!.headers.get("verbatim-signature")!, [secret])).toBe(true);

    // Rotating asks first (issue 25): without the confirmation nothing changes.
    const unconfirmed = await client.post(`/settings/webhooks/${endpoint.id}/rotate`, { _csrf: csrf });
    expect(unconfirmed.status).toBe(303);
    expect(await (await client.follow(unconfirmed)).text()).toContain("Tick the box to confirm first.");
    const rotated = await client.post(`/settings/webhooks/${endpoint.id}/rotate`, { _csrf: csrf, confirm: "yes" });
    expect(rotated.status).toBe(303);
    const newSecret = shownSecret(await (await client.follow(rotated)).text())!;
    expect(newSecret).toStartWith("whsec_");
    expect(newSecret).not.toBe(secret);
    await client.post(`/settings/webhooks/${endpoint.id}/test`, { _csrf: csrf });
    const [, second] = await receiver.waitFor(2);
    // For a day, both secrets sign: the receiver may verify with either.
    expect(verifySignature(second!.body, second!.headers.get("verbatim-signature")!, [newSecret])).toBe(true);
    expect(verifySignature(second!.body, second!.headers.get("verbatim-signature")!, [secret])).toBe(true);

    const log = await (await client.get(`/settings/webhooks/${endpoint.id}`)).text();
    expect(log.match(/<code>ping<\/code>/g)?.length).toBe(2);

    const nosy = await signedIn("nosy@firm.example");
    expect((await nosy.client.get(`/settings/webhooks/${endpoint.id}`)).status).toBe(404);
    expect((await nosy.client.post(`/settings/webhooks/${endpoint.id}/delete`, { _csrf: nosy.csrf, confirm: "yes" })).status).toBe(404);
    expect((await nosy.client.post(`/settings/webhooks/${endpoint.id}/rotate`, { _csrf: nosy.csrf, confirm: "yes" })).status).toBe(404);
    expect(await (await nosy.client.get("/settings/webhooks")).text()).not.toContain("from-settings");

    const traces = [secret, newSecret, `${receiver.url}/from-settings`];
    expect((await needlesKept(server.dataDir, conn, traces)).length).toBeGreaterThan(0);
    expect((await client.post(`/settings/webhooks/${endpoint.id}/delete`, { _csrf: csrf, confirm: "yes" })).status).toBe(303);
    expect(((await (await server.api("/api/v1/webhook_endpoints", { key })).json()) as Json).data).toEqual([]);
    // Nor does any file of the data dir keep its secrets or URL (the WAL is truncated after a deletion).
    const deadline = Date.now() + 20_000;
    while ((await needlesKept(server.dataDir, conn, traces)).length && Date.now() < deadline) await Bun.sleep(100);
    expect(await needlesKept(server.dataDir, conn, traces)).toEqual([]);
  });
});

describe("usage in Settings", () => {
  test("the month's ledger lists the API's and the web app's lines, each on its own channel", async () => {
    const form = new FormData();
    form.append("file", Bun.file(FIXTURE), "api.wav");
    const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json;
    const deadline = Date.now() + 30_000;
    while (((await (await server.api(`/api/v1/meetings/${created.id}`, { key })).json()) as Json).status !== "completed" && Date.now() < deadline) await Bun.sleep(100);
    const { client } = await signedIn();
    const page = await (await client.get("/settings/usage")).text();
    // The operations in the person's words (issue 25, item 10).
    expect(page).toContain(`href="/meetings/${created.id}">Transcription</a>`);
    expect(page).toContain(`href="/meetings/${created.id}">AI report</a>`);
    expect(page).toContain("<td>API</td>");
    const nosy = await signedIn("nosy@firm.example");
    expect(await (await nosy.client.get("/settings/usage")).text()).not.toContain(created.id);
  });
});

// Retention policies and legal holds over real HTTP (issue 23, item 3): GET/PUT /v1/retention and
// its bounds and scopes; legal holds on a meeting (PATCH legal_hold) and on a client folder (PATCH
// /v1/clients/{id} legal_hold), DELETE of a held meeting refused with 409 legal_hold, the list's
// on_hold filter, another account's ids answering 404; the meeting's retention dates; and the
// server's own periodic sweep (--sweep-interval 1) deleting a meeting, and only the recording of
// another, each written to the audit trail. Engine doubles process real uploads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { queryRows } from "../helpers/query.ts";
import { createUserWithKey, expectProblem, SHARED_FIXTURES, startServer, type TestServer } from "../helpers/server.ts";

const WAV = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const DAY = 24 * 3600 * 1000;
type Json = any;

let server: TestServer;
let ownerKey: string;
let readerKey: string;
let otherKey: string;

beforeAll(async () => {
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--sweep-interval", "1", "--rate-limits", "pro=100000,free=100000,standard=100000,anonymous=100000"],
  });
  ownerKey = await createUserWithKey(server, "holder@firm.example");
  readerKey = await server
    .admin("key", "create", "--email", "holder@firm.example", "--name", "reader", "--scopes", "read:meetings", "--json")
    .then((r) => (JSON.parse(r.stdout) as { key: string }).key);
  otherKey = await createUserWithKey(server, "stranger@firm.example");
}, 60_000);

afterAll(async () => {
  await server.stop();
});

async function upload(key: string, fields: Record<string, string> = {}): Promise<Json> {
  const form = new FormData();
  form.set("file", Bun.file(WAV), "meeting.wav");
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  const body = (await response.json()) as Json;
  if (response.status !== 202) throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
  return waitFor(key, body.id, (m) => m.status === "completed");
}

async function getMeeting(key: string, id: string): Promise<Response> {
  return server.api(`/api/v1/meetings/${id}`, { key });
}

async function waitFor(key: string, id: string, done: (meeting: Json) => boolean, timeoutMs = 30_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await getMeeting(key, id);
    const meeting = response.status === 200 ? await response.json() : null;
    if (meeting && done(meeting)) return meeting;
    if (Date.now() > until) throw new Error(`meeting ${id} not as expected: ${JSON.stringify(meeting)}`);
    await Bun.sleep(100);
  }
}

const putPolicy = (key: string, json: unknown) => server.api("/api/v1/retention", { method: "PUT", key, json });
const patchMeeting = (key: string, id: string, json: unknown) => server.api(`/api/v1/meetings/${id}`, { method: "PATCH", key, json });
const listIds = async (key: string, query: string) => ((await (await server.api(`/api/v1/meetings?${query}`, { key })).json()) as Json).data.map((m: Json) => m.id);

describe("GET and PUT /v1/retention", () => {
  test("no policy at first; a PUT replaces it whole and GET reads it back", async () => {
    const key = await createUserWithKey(server, "policy@firm.example");
    const first = await server.api("/api/v1/retention", { key });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ object: "retention_policy", delete_after_days: null, recording_delete_after_days: null, basis: "recorded_at", updated_at: null });
    const put = await putPolicy(key, { delete_after_days: 365, recording_delete_after_days: 30 });
    expect(put.status).toBe(200);
    const saved = (await put.json()) as Json;
    expect(saved).toMatchObject({ object: "retention_policy", delete_after_days: 365, recording_delete_after_days: 30, basis: "recorded_at" });
    expect(Date.parse(saved.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(await (await server.api("/api/v1/retention", { key })).json()).toEqual(saved);
    // Off again: both null.
    expect(await (await putPolicy(key, { delete_after_days: null, recording_delete_after_days: null })).json()).toMatchObject({ delete_after_days: null, recording_delete_after_days: null });
    // Another account's policy is its own.
    expect(await (await server.api("/api/v1/retention", { key: otherKey })).json()).toMatchObject({ delete_after_days: null, recording_delete_after_days: null });
  });

  test("bounds: whole days from 1 to 36500 or null, both fields, the recording's below the meeting's; nothing saved when refused", async () => {
    const key = await createUserWithKey(server, "bounds@firm.example");
    const refused: [unknown, string][] = [
      [{ delete_after_days: 0, recording_delete_after_days: null }, "delete_after_days"],
      [{ delete_after_days: 36501, recording_delete_after_days: null }, "delete_after_days"],
      [{ delete_after_days: 2.5, recording_delete_after_days: null }, "delete_after_days"],
      [{ delete_after_days: "30", recording_delete_after_days: null }, "delete_after_days"],
      [{ delete_after_days: 30 }, "recording_delete_after_days"],
      [{ delete_after_days: 30, recording_delete_after_days: 30 }, "recording_delete_after_days"],
      [{ delete_after_days: 30, recording_delete_after_days: -1 }, "recording_delete_after_days"],
      [{ delete_after_days: 30, recording_delete_after_days: null, keep_forever: true }, "keep_forever"],
    ];
    for (const [body, field] of refused) {
      const problem = await expectProblem(await putPolicy(key, body), 400, "validation_error");
      expect({ body, fields: (problem.errors as Json[]).map((e) => e.field) }).toEqual({ body, fields: [field] });
    }
    await expectProblem(await server.api("/api/v1/retention", { method: "PUT", key, body: "{not json", headers: { "content-type": "application/json" } }), 400, "malformed_body");
    expect(await (await server.api("/api/v1/retention", { key })).json()).toMatchObject({ delete_after_days: null, updated_at: null });
    expect((await putPolicy(key, { delete_after_days: 36500, recording_delete_after_days: 1 })).status).toBe(200);
  });

  test("scopes: read:meetings reads, write:meetings changes", async () => {
    expect((await server.api("/api/v1/retention", { key: readerKey })).status).toBe(200);
    await expectProblem(await putPolicy(readerKey, { delete_after_days: 5, recording_delete_after_days: null }), 403, "insufficient_scope");
    await expectProblem(await server.api("/api/v1/retention"), 401, "unauthorized");
  });
});

describe("legal holds", () => {
  let held: Json;
  let inFolder: Json;
  let free: Json;
  let clientId: string;

  beforeAll(async () => {
    [held, inFolder, free] = await Promise.all([
      upload(ownerKey, { title: "Held by itself" }),
      upload(ownerKey, { title: "In the held folder", client: "Hold Partners LLP" }),
      upload(ownerKey, { title: "Free to go" }),
    ]);
    clientId = inFolder.client.id;
  }, 120_000);

  test("a new meeting and client are not held; the meeting shows no retention dates without a policy", () => {
    expect(held).toMatchObject({ legal_hold: false, legal_hold_inherited: false, retention: { delete_at: null, recording_delete_at: null }, recording_deleted_at: null });
    expect(inFolder.client).toMatchObject({ id: clientId, legal_hold: false });
  });

  test("PATCH legal_hold sets and lifts a meeting's own hold; DELETE of a held meeting answers 409 legal_hold and deletes nothing", async () => {
    const patched = await patchMeeting(ownerKey, held.id, { legal_hold: true });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ id: held.id, legal_hold: true, legal_hold_inherited: false });
    const problem = await expectProblem(await server.api(`/api/v1/meetings/${held.id}`, { method: "DELETE", key: ownerKey }), 409, "legal_hold");
    expect(problem.detail).toContain("legal hold");
    expect((await getMeeting(ownerKey, held.id)).status).toBe(200);
    expect((await server.api(`/api/v1/meetings/${held.id}/transcript`, { key: ownerKey })).status).toBe(200);
    await expectProblem(await patchMeeting(ownerKey, held.id, { legal_hold: "yes" }), 400, "validation_error");
  });

  test("a hold on the client folder holds its meetings: shown as inherited, DELETE refused until the folder's hold is lifted", async () => {
    const patched = await server.api(`/api/v1/clients/${clientId}`, { method: "PATCH", key: ownerKey, json: { legal_hold: true } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ id: clientId, object: "client", legal_hold: true, is_archived: false });
    expect(await (await getMeeting(ownerKey, inFolder.id)).json()).toMatchObject({ legal_hold: false, legal_hold_inherited: true, client: { legal_hold: true } });
    // The meeting's own flag cannot lift the folder's hold.
    expect(await (await patchMeeting(ownerKey, inFolder.id, { legal_hold: false })).json()).toMatchObject({ legal_hold: false, legal_hold_inherited: true });
    await expectProblem(await server.api(`/api/v1/meetings/${inFolder.id}`, { method: "DELETE", key: ownerKey }), 409, "legal_hold");
    // The folder's listing shows the hold too; the archive flag is untouched by it.
    const folder = ((await (await server.api("/api/v1/clients", { key: ownerKey })).json()) as Json).data.find((c: Json) => c.id === clientId);
    expect(folder).toMatchObject({ legal_hold: true, is_archived: false });
    await expectProblem(await server.api(`/api/v1/clients/${clientId}`, { method: "PATCH", key: ownerKey, json: {} }), 400, "validation_error");
  });

  test("?on_hold=true lists the held meetings (own or inherited), false the others; a wrong value is 400", async () => {
    const onHold = await listIds(ownerKey, "on_hold=true");
    expect(onHold.sort()).toEqual([held.id, inFolder.id].sort());
    const notHeld = await listIds(ownerKey, "on_hold=false&limit=100");
    expect(notHeld).toContain(free.id);
    expect(notHeld).not.toContain(held.id);
    expect(notHeld).not.toContain(inFolder.id);
    await expectProblem(await server.api("/api/v1/meetings?on_hold=maybe", { key: ownerKey }), 400, "validation_error");
    expect(await listIds(otherKey, "on_hold=true")).toEqual([]);
  });

  test("another account's meeting and client answer 404: no hold set or lifted, no deletion", async () => {
    await expectProblem(await patchMeeting(otherKey, free.id, { legal_hold: true }), 404, "not_found");
    await expectProblem(await patchMeeting(otherKey, held.id, { legal_hold: false }), 404, "not_found");
    await expectProblem(await server.api(`/api/v1/clients/${clientId}`, { method: "PATCH", key: otherKey, json: { legal_hold: false } }), 404, "not_found");
    await expectProblem(await server.api(`/api/v1/meetings/${held.id}`, { method: "DELETE", key: otherKey }), 404, "not_found");
    expect(await (await getMeeting(ownerKey, held.id)).json()).toMatchObject({ legal_hold: true });
    expect(await (await getMeeting(ownerKey, inFolder.id)).json()).toMatchObject({ legal_hold_inherited: true });
  });

  test("lifted, the holds no longer stop DELETE", async () => {
    expect(await (await patchMeeting(ownerKey, held.id, { legal_hold: false })).json()).toMatchObject({ legal_hold: false });
    expect(await (await server.api(`/api/v1/clients/${clientId}`, { method: "PATCH", key: ownerKey, json: { legal_hold: false } })).json()).toMatchObject({ legal_hold: false });
    for (const id of [held.id, inFolder.id]) {
      expect((await server.api(`/api/v1/meetings/${id}`, { method: "DELETE", key: ownerKey })).status).toBe(204);
      expect((await getMeeting(ownerKey, id)).status).toBe(404);
    }
  });
});

describe("the meeting's retention dates and the server's sweep", () => {
  test("the meeting shows when the policy deletes it and its recording; null while held", async () => {
    const key = await createUserWithKey(server, "dates@firm.example");
    // Long periods: nothing here is due, so the running sweep leaves it.
    expect((await putPolicy(key, { delete_after_days: 3000, recording_delete_after_days: 1000 })).status).toBe(200);
    const meeting = await upload(key, { recorded_at: "2026-01-10T09:00:00Z" });
    const shown = (await (await getMeeting(key, meeting.id)).json()) as Json;
    expect(shown.retention).toEqual({
      delete_at: new Date(Date.parse("2026-01-10T09:00:00Z") + 3000 * DAY).toISOString(),
      recording_delete_at: new Date(Date.parse("2026-01-10T09:00:00Z") + 1000 * DAY).toISOString(),
    });
    expect((await (await patchMeeting(key, meeting.id, { legal_hold: true })).json()).retention).toEqual({ delete_at: null, recording_delete_at: null });
  }, 60_000);

  test("the periodic sweep deletes a meeting past its period, and only the recording of one past the recording's, each written to the audit trail", async () => {
    const key = await createUserWithKey(server, "swept@firm.example");
    const old = await upload(key, { title: "Three days old" });
    const recent = await upload(key, { title: "Two days old" });
    const kept = await upload(key, { title: "Held, three days old" });
    const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
    for (const [meeting, days] of [[old, 3], [recent, 2], [kept, 3]] as const) {
      expect((await patchMeeting(key, meeting.id, { recorded_at: daysAgo(days) })).status).toBe(200);
    }
    expect((await patchMeeting(key, kept.id, { legal_hold: true })).status).toBe(200);
    const recordingOf = (id: string) => join(server.dataDir, "meetings", id, "recording");
    expect(existsSync(recordingOf(recent.id))).toBe(true);
    // Whole meetings after 3 days (the one recorded three days ago is due), recordings after 1.
    expect((await putPolicy(key, { delete_after_days: 3, recording_delete_after_days: 1 })).status).toBe(200);

    const until = Date.now() + 20_000;
    while ((await getMeeting(key, old.id)).status !== 404) {
      if (Date.now() > until) throw new Error("the sweep did not delete the meeting");
      await Bun.sleep(200);
    }
    const stripped = await waitFor(key, recent.id, (m) => m.recording_deleted_at !== null, 20_000);
    expect(stripped.retention.recording_delete_at).toBeNull();
    expect(stripped.retention.delete_at).not.toBeNull();
    expect(existsSync(recordingOf(recent.id))).toBe(false);
    expect(existsSync(join(server.dataDir, "meetings", recent.id, "audio.wav"))).toBe(false);
    expect(existsSync(join(server.dataDir, "meetings", old.id))).toBe(false);
    // The transcript and the report are kept.
    expect((await server.api(`/api/v1/meetings/${recent.id}/transcript`, { key })).status).toBe(200);
    expect(stripped.summary).not.toBeNull();
    // The held one keeps everything, recording included.
    expect(await (await getMeeting(key, kept.id)).json()).toMatchObject({ legal_hold: true, recording_deleted_at: null });
    expect(existsSync(recordingOf(kept.id))).toBe(true);

    // The trail holds each cut once, as the system's, by id only.
    const entries = await queryRows<Json>(
      server,
      sql`SELECT action, resource_type, resource_id, channel, credential_type, actor_user_id FROM audit_entries WHERE action LIKE 'retention.%' AND resource_id IN (${old.id}, ${recent.id}, ${kept.id}) ORDER BY action`,
    );
    expect(entries).toEqual([
      { action: "retention.meeting_deleted", resource_type: "meeting", resource_id: old.id, channel: "system", credential_type: "system", actor_user_id: null },
      { action: "retention.recording_deleted", resource_type: "meeting", resource_id: recent.id, channel: "system", credential_type: "system", actor_user_id: null },
    ]);
    expect(server.lines.some((line) => line.includes("past their account's retention policy"))).toBe(true);
  }, 120_000);
});

// Retention and legal holds in the web app over real HTTP (issue 23, item 3): Settings → Retention
// saves the account's policy (the same one GET /v1/retention reads) and refuses out-of-bounds
// values with the reason, in English and French; the meeting page places and lifts a hold, says
// when the policy deletes the meeting, refuses to delete a held one, and hides the player once
// retention removed the recording (its audio route then answers 410); the meetings list filters
// on hold; the clients page holds a folder. Another account reaches none of it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryExec } from "../helpers/query.ts";
import { createUserWithKey, SHARED_FIXTURES, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);
type Json = any;

const WAV = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const PASSWORD = "correct horse battery";
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000"] });
  key = await createUserWithKey(server, "officer@firm.example");
  await createUserWithKey(server, "nosy@firm.example");
  for (const email of ["officer@firm.example", "nosy@firm.example"]) await server.admin("user", "password", "--email", email, "--password", PASSWORD);
}, 180_000);
afterAll(async () => {
  await server.stop();
});

async function signedIn(email = "officer@firm.example") {
  const client = new CookieClient(server.url);
  await client.signIn(email, PASSWORD);
  return { client, csrf: await client.csrfToken("/settings/retention") };
}

async function uploaded(fields: Record<string, string> = {}): Promise<Json> {
  const form = new FormData();
  form.set("file", Bun.file(WAV), "meeting.wav");
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json;
  const until = Date.now() + 30_000;
  for (;;) {
    const meeting = (await (await server.api(`/api/v1/meetings/${created.id}`, { key })).json()) as Json;
    if (meeting.status === "completed") return meeting;
    if (Date.now() > until) throw new Error(`meeting stuck in ${meeting.status}`);
    await Bun.sleep(100);
  }
}

const apiPolicy = async () => (await (await server.api("/api/v1/retention", { key })).json()) as Json;

describe("Settings → Retention", () => {
  test("the tab shows the policy; saving sets the one the API reads; out-of-bounds values are refused with the reason and change nothing", async () => {
    const { client, csrf } = await signedIn();
    const page = await (await client.get("/settings/retention")).text();
    expect(page).toContain('href="/settings/retention"');
    expect(page).toContain("Retention");
    expect(page).toContain("Meetings are deleted never; recordings never.");
    expect(page).toContain('name="delete_after_days"');

    const saved = await client.post("/settings/retention", { _csrf: csrf, delete_after_days: "400", recording_delete_after_days: "90" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe("/settings/retention?notice=retentionSaved");
    expect(await apiPolicy()).toMatchObject({ delete_after_days: 400, recording_delete_after_days: 90 });
    const after = await (await client.get("/settings/retention?notice=retentionSaved")).text();
    expect(after).toContain("Retention policy saved.");
    expect(after).toContain('value="400"');
    expect(after).toContain("Meetings are deleted 400 days after they were recorded; recordings 90 days after they were recorded.");

    // Issue 25: each refusal comes back to the form (303), the values kept, the rule at the field.
    for (const [whole, recording, reason] of [
      ["0", "", "A whole number of days from 1 to 36500, or empty"],
      ["36501", "", "A whole number of days from 1 to 36500, or empty"],
      ["ten", "", "A whole number of days from 1 to 36500, or empty"],
      ["30", "30", "Fewer days than the whole meeting: the recording goes first"],
    ]) {
      const refused = await client.post("/settings/retention", { _csrf: csrf, delete_after_days: whole!, recording_delete_after_days: recording! });
      expect({ whole, recording, status: refused.status }).toEqual({ whole, recording, status: 303 });
      const back = await (await client.follow(refused)).text();
      expect(back).toContain(reason!);
      expect(back).toContain(`value="${whole}"`);
    }
    expect(await apiPolicy()).toMatchObject({ delete_after_days: 400, recording_delete_after_days: 90 });

    // Empty fields turn the policy off; a form without its CSRF token changes nothing.
    expect((await client.post("/settings/retention", { delete_after_days: "", recording_delete_after_days: "" })).status).toBe(403);
    expect(await apiPolicy()).toMatchObject({ delete_after_days: 400 });
    expect((await client.post("/settings/retention", { _csrf: csrf, delete_after_days: "", recording_delete_after_days: "" })).status).toBe(303);
    expect(await apiPolicy()).toMatchObject({ delete_after_days: null, recording_delete_after_days: null });
  });

  test("in French", async () => {
    const { client, csrf } = await signedIn("nosy@firm.example");
    await client.post("/settings/language", { _csrf: csrf, locale: "fr" });
    const page = await (await client.get("/settings/retention")).text();
    expect(page).toContain("Conservation");
    expect(page).toContain("Supprimer les réunions entières après (jours)");
    const refused = await client.post("/settings/retention", { _csrf: csrf, delete_after_days: "0", recording_delete_after_days: "" });
    // Issue 25: back to the form (303), the value kept and the rule at the field, in French.
    expect(refused.status).toBe(303);
    const back = await (await client.follow(refused)).text();
    expect(back).toContain("Un nombre entier de jours, de 1 à 36500, ou rien");
    expect(back).toContain('aria-invalid="true"');
  });
});

describe("holds in the web app", () => {
  let meeting: Json;
  let other: Json;

  beforeAll(async () => {
    [meeting, other] = await Promise.all([uploaded({ title: "Board minutes", client: "Hold Clinic" }), uploaded({ title: "Coffee chat" })]);
  }, 120_000);

  test("the meeting page places a hold, says so, refuses deletion while it holds, and lifts it", async () => {
    const { client, csrf } = await signedIn();
    await client.post("/settings/retention", { _csrf: csrf, delete_after_days: "36500", recording_delete_after_days: "" });
    const before = await (await client.get(`/meetings/${meeting.id}`)).text();
    expect(before).toContain("The retention policy deletes this meeting on");
    expect(before).toContain("Place under legal hold");

    const held = await client.post(`/meetings/${meeting.id}/hold`, { _csrf: csrf, legal_hold: "true" });
    expect(held.status).toBe(303);
    expect(held.headers.get("location")).toBe(`/meetings/${meeting.id}?notice=held`);
    const page = await (await client.get(`/meetings/${meeting.id}?notice=held`)).text();
    expect(page).toContain("The meeting is under a legal hold.");
    expect(page).toContain("This meeting is under a legal hold");
    expect(page).not.toContain("The retention policy deletes this meeting on");
    expect(page).toContain("Lift the legal hold");

    const refused = await client.post(`/meetings/${meeting.id}/delete`, { _csrf: csrf, confirm: "yes" });
    expect(refused.status).toBe(303); // issue 25: back to the meeting page, saying why
    expect(await (await client.follow(refused)).text()).toContain("legal hold");
    expect((await server.api(`/api/v1/meetings/${meeting.id}`, { key })).status).toBe(200);

    // The list's filter: on hold only, then not on hold.
    const onHold = await (await client.get("/meetings?on_hold=true")).text();
    expect(onHold).toContain("Board minutes");
    expect(onHold).not.toContain("Coffee chat");
    const notHeld = await (await client.get("/meetings?on_hold=false")).text();
    expect(notHeld).toContain("Coffee chat");
    expect(notHeld).not.toContain("Board minutes");

    // Another account can neither see nor change it.
    const nosy = await signedIn("nosy@firm.example");
    expect((await nosy.client.post(`/meetings/${meeting.id}/hold`, { _csrf: nosy.csrf, legal_hold: "false" })).status).toBe(404);
    expect(((await (await server.api(`/api/v1/meetings/${meeting.id}`, { key })).json()) as Json).legal_hold).toBe(true);

    expect((await client.post(`/meetings/${meeting.id}/hold`, { _csrf: csrf, legal_hold: "false" })).headers.get("location")).toBe(`/meetings/${meeting.id}?notice=released`);
    expect(((await (await server.api(`/api/v1/meetings/${meeting.id}`, { key })).json()) as Json).legal_hold).toBe(false);
  });

  test("the clients page holds a folder: its meetings are held (and say why) until it is lifted", async () => {
    const { client, csrf } = await signedIn();
    const clientId = meeting.client.id;
    expect(await (await client.get("/clients")).text()).toContain(`/clients/${clientId}/hold`);
    const held = await client.post(`/clients/${clientId}/hold`, { _csrf: csrf });
    expect(held.headers.get("location")).toBe("/clients?notice=clientHeld");
    const list = await (await client.get("/clients?notice=clientHeld")).text();
    expect(list).toContain("The client folder is under a legal hold");
    expect(list).toContain(`/clients/${clientId}/release`);
    expect(await (await client.get(`/meetings/${meeting.id}`)).text()).toContain("Its client folder is under a legal hold");
    const refusedDelete = await client.post(`/meetings/${meeting.id}/delete`, { _csrf: csrf, confirm: "yes" });
    expect(refusedDelete.headers.get("location")).toBe(`/meetings/${meeting.id}`); // issue 25: back to the page, refused
    expect((await server.api(`/api/v1/meetings/${meeting.id}`, { key })).status).toBe(200);
    const nosy = await signedIn("nosy@firm.example");
    expect((await nosy.client.post(`/clients/${clientId}/release`, { _csrf: nosy.csrf })).status).toBe(404);
    expect((await client.post(`/clients/${clientId}/release`, { _csrf: csrf })).headers.get("location")).toBe("/clients?notice=clientReleased");
    expect(((await (await server.api(`/api/v1/meetings/${meeting.id}`, { key })).json()) as Json).legal_hold_inherited).toBe(false);
  });

  test("once retention removed the recording, the player is hidden and the audio route answers 410", async () => {
    const { client } = await signedIn();
    expect(await (await client.get(`/meetings/${other.id}`)).text()).toContain(`/meetings/${other.id}/audio`);
    // What the sweep does to a recording (meetings/retention-sweep.ts, tested there): the mark and the files.
    await queryExec(server, sql`UPDATE meetings SET recording_deleted_at = ${Date.UTC(2026, 10, 2)} WHERE id = ${other.id}`);
    await Bun.file(`${server.dataDir}/meetings/${other.id}/recording`).delete();
    const page = await (await client.get(`/meetings/${other.id}`)).text();
    expect(page).not.toContain(`/meetings/${other.id}/audio`);
    expect(page).toContain("The recording was deleted by the retention policy on");
    const audio = await client.get(`/meetings/${other.id}/audio`);
    expect(audio.status).toBe(410);
    expect(await audio.text()).toContain("retention policy");
  });
});

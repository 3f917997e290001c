// Draft meetings over real HTTP (issue 14): the recorder's and the resumable uploader's protocol.
// Parts arrive in any order and again after a cut, finishing needs every part (and the declared
// size), the joined recording is the original's bytes, and only the owner with the session's
// CSRF token can add to a draft.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);
type Json = any;

const FIXTURE = new Uint8Array(readFileSync(join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav")));
const PASSWORD = "correct horse battery";
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
  key = await createUserWithKey(server, "recorder@firm.example");
  await createUserWithKey(server, "stranger@firm.example");
  for (const email of ["recorder@firm.example", "stranger@firm.example"]) await server.admin("user", "password", "--email", email, "--password", PASSWORD);
});
afterAll(() => server.stop());

async function signedIn(email = "recorder@firm.example") {
  const client = new CookieClient(server.url);
  await client.signIn(email, PASSWORD);
  return { client, csrf: await client.csrfToken("/settings") };
}

const put = (client: CookieClient, csrf: string | null, id: string, index: number | string, bytes: Uint8Array<ArrayBuffer>) =>
  fetch(`${server.url}/meetings/${id}/parts/${index}`, {
    method: "PUT",
    headers: { cookie: client.header(), origin: server.url, ...(csrf ? { "x-csrf-token": csrf } : {}) },
    body: bytes,
  });

test("an upload in parts, out of order and one sent twice, finishes only when whole, as the original's bytes", async () => {
  const { client, csrf } = await signedIn();
  const created = await client.post("/meetings/drafts", { kind: "upload", title: "Sent in parts", file_name: "interview.wav", language: "fr" }, { "x-csrf-token": csrf });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // A draft is listed by the API, with no job.
  const listed = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
  expect(listed).toMatchObject({ status: "draft", source: "upload", job: null, title: "Sent in parts" });

  const third = Math.ceil(FIXTURE.length / 3);
  const parts = [FIXTURE.subarray(0, third), FIXTURE.subarray(third, 2 * third), FIXTURE.subarray(2 * third)];
  expect((await put(client, csrf, id, 2, parts[2]!)).status).toBe(204);
  expect((await put(client, csrf, id, 0, FIXTURE.subarray(0, 100))).status).toBe(204); // a first try, cut short
  expect((await put(client, csrf, id, 0, parts[0]!)).status).toBe(204); // sent again: this copy wins
  const state = (await (await client.get(`/meetings/${id}/parts`)).json()) as Json;
  expect(state).toEqual({ status: "draft", received: [0, 2], bytes: parts[0]!.length + parts[2]!.length });

  const early = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(early.status).toBe(409);
  expect(await early.text()).toContain("Missing parts: 1.");
  expect((await put(client, csrf, id, 1, parts[1]!)).status).toBe(204);
  const wrongSize = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length + 1) }, { "x-csrf-token": csrf });
  expect(wrongSize.status).toBe(409);

  const finished = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(finished.status).toBe(303);
  expect(finished.headers.get("location")).toBe(`/meetings/${id}`);
  const audio = await client.get(`/meetings/${id}/audio`);
  expect(Buffer.from(await audio.arrayBuffer()).equals(FIXTURE)).toBe(true);
  // No more parts, no second finish.
  expect((await put(client, csrf, id, 3, new Uint8Array(5))).status).toBe(409);
  expect((await client.post(`/meetings/${id}/finish`, {}, { "x-csrf-token": csrf })).status).toBe(409);
  const deadline = Date.now() + 30_000;
  let meeting: Json;
  do {
    await Bun.sleep(100);
    meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
  } while (meeting.status !== "completed" && meeting.status !== "failed" && Date.now() < deadline);
  expect(meeting.status).toBe("completed");
  expect(meeting.job).toBeNull(); // a web app meeting
  expect(meeting.duration_seconds).toBe(29);
});

test("parts need the session's CSRF token and the owner; bounds on number and size", async () => {
  const { client, csrf } = await signedIn();
  const { id } = (await (await client.post("/meetings/drafts", { kind: "recording" }, { "x-csrf-token": csrf })).json()) as { id: string };
  const draft = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
  expect(draft).toMatchObject({ status: "draft", source: "live_recording" });
  expect((await put(client, null, id, 0, new Uint8Array(10))).status).toBe(403);
  expect((await put(client, "forged", id, 0, new Uint8Array(10))).status).toBe(403);
  expect((await put(client, csrf, id, "x", new Uint8Array(10))).status).toBe(400);
  expect((await put(client, csrf, id, 100000, new Uint8Array(10))).status).toBe(400); // past the last part number
  expect((await put(client, csrf, id, 0, new Uint8Array(0))).status).toBe(400);
  expect((await put(client, csrf, id, 0, new Uint8Array(16 * 1024 * 1024 + 1))).status).toBe(413);
  const stranger = await signedIn("stranger@firm.example");
  expect((await put(stranger.client, stranger.csrf, id, 0, new Uint8Array(10))).status).toBe(404);
  expect((await stranger.client.get(`/meetings/${id}/parts`)).status).toBe(404);
  expect((await stranger.client.post(`/meetings/${id}/finish`, {}, { "x-csrf-token": stranger.csrf })).status).toBe(404);
  const state = (await (await client.get(`/meetings/${id}/parts`)).json()) as Json;
  expect(state.received).toEqual([]);
  // The draft's page says what arrived and offers nothing to finish yet.
  const page = await (await client.get(`/meetings/${id}`)).text();
  expect(page).toContain("Parts of the recording received: 0");
  expect(page).not.toContain(`action="/meetings/${id}/finish"`);
});

// Corrections of a transcript's words (issue 14's API extension): versioned with their author,
// and used by everything that reads the transcript: its formats, search, the export bundle, and
// a report written again (the web app's button), which reads the corrected words and the names.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { queryRows } from "../helpers/query.ts";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);
type Json = any;

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
let server: TestServer;
let key: string;
let readerKey: string;
let otherKey: string;
let meetingId: string;

async function waitCompleted(id: string): Promise<Json> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
    if (meeting.status === "completed" || meeting.status === "failed" || Date.now() > deadline) return meeting;
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
  key = await createUserWithKey(server, "editor@firm.example");
  otherKey = await createUserWithKey(server, "outsider@firm.example");
  const reader = await server.admin("key", "create", "--email", "editor@firm.example", "--name", "reader", "--scopes", "read:meetings,read:transcripts", "--json");
  readerKey = (JSON.parse(reader.stdout) as { key: string }).key;
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", "Corrections meeting");
  meetingId = ((await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json).id;
  expect((await waitCompleted(meetingId)).status).toBe("completed");
});
afterAll(() => server.stop());

const correct = (index: number, text: unknown, withKey = key) =>
  server.api(`/api/v1/meetings/${meetingId}/transcript/segments/${index}`, { method: "PATCH", key: withKey, json: { text } });

test("a correction replaces the segment's words everywhere and is kept as a version with its author", async () => {
  const before = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key })).json()) as Json;
  const original = before.segments[1].text as string;
  const first = await correct(1, "  the zeppelin budget\nwas approved  ");
  expect(first.status).toBe(200);
  expect((await first.json()) as Json).toMatchObject({ object: "transcript_segment", index: 1, text: "the zeppelin budget was approved", version: 1, start: before.segments[1].start });
  expect(((await (await correct(1, "the zeppelin budget was approved in March")).json()) as Json).version).toBe(2);
  // The same words again: no new version.
  expect(((await (await correct(1, "the zeppelin budget was approved in March")).json()) as Json).version).toBe(2);

  const after = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key })).json()) as Json;
  expect(after.segments[1].text).toBe("the zeppelin budget was approved in March");
  expect(after.segments.length).toBe(before.segments.length);
  const srt = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=srt`, { key })).text();
  expect(srt).toContain("the zeppelin budget was approved in March");

  const corrections = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript/corrections`, { key: readerKey })).json()) as Json;
  expect(corrections.data).toHaveLength(2);
  expect(corrections.data[0]).toMatchObject({ segment_index: 1, version: 1, previous_text: original, text: "the zeppelin budget was approved", author: { email: "editor@firm.example" } });
  expect(corrections.data[1]).toMatchObject({ version: 2, previous_text: "the zeppelin budget was approved" });

  // Search and the export bundle read the corrected words.
  const found = (await (await server.api("/api/v1/meetings?q=zeppelin", { key })).json()) as Json;
  expect(found.data.map((m: Json) => m.id)).toEqual([meetingId]);
  const exported = await (await server.api(`/api/v1/meetings/${meetingId}/export?format=md`, { key })).text();
  expect(exported).toContain("the zeppelin budget was approved in March");
});

test("corrections are refused for another account (404), a read-only key (403), a segment that does not exist and empty words", async () => {
  await expectProblem(await correct(0, "mine", otherKey), 404, "not_found");
  await expectProblem(await correct(0, "read only", readerKey), 403, "insufficient_scope");
  await expectProblem(await correct(100000, "nowhere"), 404, "not_found");
  await expectProblem(await correct(0, "   "), 400, "validation_error");
  await expectProblem(await correct(0, "x".repeat(5001)), 400, "validation_error");
  await expectProblem(await correct(0, 42), 400, "validation_error");
  const list = (await server.api(`/api/v1/meetings/${meetingId}/transcript/corrections`, { key: otherKey }));
  await expectProblem(list, 404, "not_found");
});

test("the web app's report button writes the report again from the corrected words and the speakers' names", async () => {
  expect((await correct(0, "Bonjour à tous, parlons du budget")).status).toBe(200);
  await server.api(`/api/v1/meetings/${meetingId}`, { method: "PATCH", key, json: { participants: { add: [{ name: "Claire", speaker_labels: ["SPEAKER_00"] }] } } });
  await server.admin("user", "password", "--email", "editor@firm.example", "--password", "correct horse battery");
  const browser = new CookieClient(server.url);
  await browser.signIn("editor@firm.example", "correct horse battery");
  const before = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as Json;
  const regenerate = await browser.post(`/meetings/${meetingId}/report/regenerate`, { _csrf: await browser.csrfToken(`/meetings/${meetingId}`) });
  expect(regenerate.status).toBe(303);
  // The meeting stays completed with its report while the new one is written: wait for the new report.
  let report: Json;
  const deadline = Date.now() + 30_000;
  do {
    const during = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as Json;
    expect(during.status).toBe("completed");
    report = (await (await server.api(`/api/v1/meetings/${meetingId}/summary`, { key })).json()) as Json;
    if (report.structured.minutes[0] !== "Claire: Bonjour à tous, parlons du budget") await Bun.sleep(100);
  } while (report.structured.minutes[0] !== "Claire: Bonjour à tous, parlons du budget" && Date.now() < deadline);
  expect(report.structured.minutes[0]).toBe("Claire: Bonjour à tous, parlons du budget");
  expect(report.structured.minutes[1]).toContain("the zeppelin budget was approved in March");
  // Only the report was written again: the transcript and its corrections stay.
  const corrections = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript/corrections`, { key })).json()) as Json;
  expect(corrections.data).toHaveLength(3);
  // A report written again spawns no documents and is metered on the web app's channel.
  const channels = await queryRows(server, sql`SELECT channel, COUNT(*) AS n FROM ledger_lines WHERE meeting_id = ${meetingId} AND operation = 'report' GROUP BY channel ORDER BY channel`);
  expect(channels).toEqual([
    { channel: "api", n: 1 },
    { channel: "webapp", n: 1 },
  ]);

  // The API-created meeting keeps its own job (issue 20 item 10): not null, not the web app's.
  const after = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as Json;
  expect(after.status).toBe("completed");
  expect(after.job).toMatchObject({ id: before.job.id, status: "completed" });
  // Every event about the meeting names a job the API answers for this key: the web app's job emitted none.
  const payloads = await queryRows<{ payload: string }>(server, sql`SELECT payload FROM events WHERE meeting_id = ${meetingId}`);
  const jobIds = payloads.map((row) => JSON.parse(row.payload).data.object).filter((object) => object.object === "job").map((object) => object.id as string);
  expect(jobIds.length).toBeGreaterThan(0);
  expect(payloads.filter((row) => JSON.parse(row.payload).type === "processing.completed")).toHaveLength(1);
  for (const jobId of new Set(jobIds)) expect((await server.api(`/api/v1/jobs/${jobId}`, { key })).status).toBe(200);
});

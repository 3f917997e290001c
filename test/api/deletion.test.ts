// Deletion deletes (issue 8, item 5; issue 20, item 1): after DELETE /v1/meetings/{id} no row of any
// table, and no byte of any file of the data dir (the database, its WAL and shared-memory index, and
// every other file), holds the meeting's title, transcript, a correction, report, participants,
// emails, tags, metadata, a document's prompt or its metadata, while the server keeps running; the
// same for a deleted webhook endpoint. Real server, real SQLite files (or, on the PostgreSQL run,
// its database and the data dir's meeting files), engine doubles for a transcript and a report.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { databaseOf, queryRow } from "../helpers/query.ts";
import { SHARED_FIXTURES, type TestServer, createUserWithKey, endedJob, startServer } from "../helpers/server.ts";
import { undecodableRecording } from "../helpers/recordings.ts";
import { checkpointIntoMainFile, indexedTerms, needlesInFiles, needlesInRows } from "../support/data-dir-scan.ts";
import { onPostgres } from "../support/postgres.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;

// Each marker is what one kind of content looks like once stored; the doubles write the
// transcript ("number3 spoken here") and the report ("Replace the doubles with real engines").
const MARKERS = {
  title: "Zanzibar Quorum",
  metadata: "Xylophone-4471",
  participant: "Quillon Marchetti",
  email: "quillon.marchetti@firm.example",
  tag: "tagzanzibar",
  transcript: "number3 spoken",
  report: "Replace the doubles with real engines",
  correction: "Vellichor amendment",
  documentPrompt: "Ombrelune instructions",
  documentMetadata: "Quetzal-8812",
};
// The full-text index keeps words one by one, lowercased.
const INDEXED_WORDS = ["zanzibar", "quorum", "vellichor"];

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-deletion-"));
let server: TestServer;
let key: string;
let meetingId: string;
let jobId: string;

beforeAll(async () => {
  // A data dir of the test's own: its files are read while the server runs, and after it stops.
  server = await startServer({
    dataDir,
    args: ["--engines", "test/doubles/engines.ts", "--egress-allow", "127.0.0.1"],
    env: { TEST_ENGINE_BEHAVIOR: "" },
  });
  key = await createUserWithKey(server, "deleter@example.com");
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", MARKERS.title);
  form.append("metadata", JSON.stringify({ matter: MARKERS.metadata }));
  form.append("participants", JSON.stringify([{ name: MARKERS.participant, email: MARKERS.email }]));
  form.append("tags", MARKERS.tag);
  const response = await server.api("/api/v1/meetings", {
    method: "POST",
    key,
    body: form,
    headers: { "Idempotency-Key": crypto.randomUUID() },
  });
  expect(response.status).toBe(202);
  const created = (await response.json()) as any;
  meetingId = created.id;
  jobId = created.job.id;
  expect((await endedJob(server, key, jobId)).status).toBe("completed");
  // The meeting so far goes into the main file: deletion must clean that file...
  if (!onPostgres) await checkpointIntoMainFile(dataDir);
  // ...and what comes next stays in the WAL, which deletion must clean as well.
  const corrected = await server.api(`/api/v1/meetings/${meetingId}/transcript/segments/0`, { method: "PATCH", key, json: { text: `${MARKERS.correction} of the first segment` } });
  expect(corrected.status).toBe(200);
  const requested = await server.api(`/api/v1/meetings/${meetingId}/documents`, {
    method: "POST",
    key,
    json: { prompt: `${MARKERS.documentPrompt} for the client note.`, title: "Note", metadata: { matter: MARKERS.documentMetadata } },
  });
  expect(requested.status).toBe(202);
  expect((await endedJob(server, key, ((await requested.json()) as any).id)).status).toBe("completed");
  // A bystander meeting that stays: its rows share pages with the deleted one's, where deleted
  // bytes would linger without secure_delete. (Junk audio: it fails, so it has no transcript that
  // would repeat the doubles' words.)
  const bystander = new FormData();
  bystander.append("file", new Blob([undecodableRecording()]), "junk.bin");
  bystander.append("title", "Bystander kept meeting");
  bystander.append("metadata", JSON.stringify({ matter: "kept" }));
  bystander.append("participants", JSON.stringify([{ name: "Kept Person", email: "kept@firm.example" }]));
  bystander.append("tags", "kepttag");
  expect((await server.api("/api/v1/meetings", { method: "POST", key, body: bystander })).status).toBe(202);
  const transcript = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=txt`, { key })).text()) as string;
  expect(transcript).toContain(MARKERS.transcript);
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Polls until no file holds any needle (cleaning may finish just after the response); answers what is left. */
async function needlesLeftAfter(needles: string[], deadlineMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + deadlineMs;
  let found = needlesInFiles(dataDir, needles);
  while (found.length && Date.now() < deadline) {
    await Bun.sleep(100);
    found = needlesInFiles(dataDir, needles);
  }
  return found;
}

const CONTENT = [...Object.values(MARKERS), ...INDEXED_WORDS];

test("before deletion the rows hold every kind of content, and the index its words (so the scans can fail)", async () => {
  const kinds = new Set((await needlesInRows(databaseOf(server), MARKERS)).map((f) => f.split(": ")[1]));
  expect([...kinds].sort()).toEqual(Object.keys(MARKERS).sort());
  expect(await indexedTerms(databaseOf(server))).toContain("zanzibar");
  expect(await indexedTerms(databaseOf(server))).toContain("vellichor");
  // The meeting's transcript is in its files in the data dir on either dialect, so the file scans below can fail too.
  expect(needlesInFiles(dataDir, [MARKERS.transcript])).not.toEqual([]);
});

// The SQLite file and its WAL are the data dir's; on PostgreSQL the rows live in the database server's own files.
test.skipIf(onPostgres)("before deletion the SQLite file and its WAL hold every kind of content (so the file scans can fail)", () => {
  // In the main file (checkpointed before the correction), and in the WAL (written since).
  const found = needlesInFiles(dataDir, CONTENT);
  expect(found).toContain(`verbatim.db: ${MARKERS.title}`);
  expect(found).toContain("verbatim.db: zanzibar");
  for (const marker of [MARKERS.correction, MARKERS.documentPrompt, MARKERS.documentMetadata]) expect(found).toContain(`verbatim.db-wal: ${marker}`);
  for (const needle of CONTENT) expect(found.some((f) => f.endsWith(`: ${needle}`))).toBe(true);
});

test("after DELETE no row of any table holds the meeting's content, and the index has no term of it", async () => {
  const response = await server.api(`/api/v1/meetings/${meetingId}`, { method: "DELETE", key });
  expect(response.status).toBe(204);
  expect(await needlesInRows(databaseOf(server), MARKERS)).toEqual([]);
  const terms = await indexedTerms(databaseOf(server));
  for (const term of ["zanzibar", "quorum", "number3", "spoken", "vellichor"]) expect(terms).not.toContain(term);
  // The job row stays (ids, states, times), without the client's metadata.
  expect(await queryRow(server, sql`SELECT meeting_id, status, metadata FROM jobs WHERE id = ${jobId}`)).toEqual({ meeting_id: meetingId, status: "completed", metadata: null });
  expect(await queryRow(server, sql`SELECT count(*) AS n FROM events WHERE meeting_id = ${meetingId}`)).toEqual({ n: 0 });
  expect(await queryRow(server, sql`SELECT count(*) AS n FROM idempotency_keys`)).toEqual({ n: 0 });
  // Through the API the job still answers, with metadata null.
  const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
  expect(job).toMatchObject({ id: jobId, meeting_id: meetingId, metadata: null });
});

test("while the server runs, no file of the data dir (database, -wal, -shm, any other) holds the deleted meeting's content", async () => {
  expect(server.process.exitCode).toBeNull();
  // On SQLite the WAL is among the files scanned (on PostgreSQL there is none in the data dir).
  expect(existsSync(join(dataDir, "verbatim.db-wal"))).toBe(!onPostgres);
  expect(await needlesLeftAfter(CONTENT)).toEqual([]);
  // Later writes do not bring anything back (a WAL only rewound would still hold old frames past them).
  expect((await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: "http://127.0.0.1:9/later", events: ["document.failed"] } })).status).toBe(201);
  expect(needlesInFiles(dataDir, CONTENT)).toEqual([]);
}, 30_000);

test("a deleted webhook endpoint leaves no row holding its URL, description or secret", async () => {
  const url = "http://127.0.0.1:9/hook-thistlewane";
  const created = await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url, events: ["document.failed"], description: "Marrowgate CRM" } });
  expect(created.status).toBe(201);
  const endpoint = (await created.json()) as any;
  const needles = { url: "hook-thistlewane", description: "Marrowgate CRM", secret: endpoint.secret as string };
  expect((await needlesInRows(databaseOf(server), needles)).map((f) => f.split(": ")[1]).sort()).toEqual(["description", "secret", "url"]);
  expect((await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", key })).status).toBe(204);
  expect(await needlesInRows(databaseOf(server), needles)).toEqual([]);
});

// A reader of an older snapshot holding back the SQLite WAL's truncation; PostgreSQL has no such file in the data dir.
test.skipIf(onPostgres)("a deleted webhook endpoint leaves no file of the data dir holding its URL, description or secret, while the server runs", async () => {
  const url = "http://127.0.0.1:9/hook-umbrafoxtrot";
  const created = await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url, events: ["document.failed"], description: "Yarrowmere CRM" } });
  expect(created.status).toBe(201);
  const endpoint = (await created.json()) as any;
  expect(endpoint.secret).toMatch(/^whsec_/);
  const needles = ["hook-umbrafoxtrot", "Yarrowmere CRM", endpoint.secret];
  const before = needlesInFiles(dataDir, needles);
  for (const needle of needles) expect(before.some((f) => f.endsWith(`: ${needle}`))).toBe(true);
  // Another connection (as the admin CLI or a backup would) reads an older snapshot during the
  // deletion: the server cannot truncate the WAL then, and must try again once the reader is done.
  const reader = new Database(join(dataDir, "verbatim.db"), { readonly: true });
  try {
    reader.exec("BEGIN");
    expect(reader.query("SELECT count(*) AS n FROM webhook_endpoints WHERE id = ?").get(endpoint.id)).toEqual({ n: 1 });
    expect((await server.api(`/api/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", key })).status).toBe(204);
    await Bun.sleep(200);
    expect(needlesInFiles(dataDir, needles).length).toBeGreaterThan(0);
    reader.exec("COMMIT");
  } finally {
    reader.close();
  }
  expect(await needlesLeftAfter(needles)).toEqual([]);
}, 30_000);

test("after the server stops, no file of the data dir holds the deleted content", async () => {
  await server.stop();
  // On SQLite the database file is among the files scanned.
  expect(existsSync(join(dataDir, "verbatim.db"))).toBe(!onPostgres);
  expect(needlesInFiles(dataDir, CONTENT)).toEqual([]);
});

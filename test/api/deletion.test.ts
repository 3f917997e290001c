// Deletion deletes (issue 8, item 5; issue 20, item 1): after DELETE /v1/meetings/{id} no row of any
// table, and no byte of any file of the data dir (the database, its WAL and shared-memory index, and
// every other file), holds the meeting's title, transcript, a correction, report, participants,
// emails, tags, metadata, a document's prompt or its metadata, while the server keeps running; the
// same for a deleted webhook endpoint. Real server, real SQLite files, engine doubles for a
// transcript and a report.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_FIXTURES, type TestServer, createUserWithKey, endedJob, startServer } from "../helpers/server.ts";
import { undecodableRecording } from "../helpers/recordings.ts";
import { checkpointIntoMainFile, needlesInFiles, needlesInRows } from "../support/data-dir-scan.ts";

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
  await checkpointIntoMainFile(dataDir);
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

/** Terms left in the full-text index, read through an fts5vocab table. */
function indexedTerms(db: Database): string[] {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, meetings_fts, row)");
  return (db.query("SELECT term FROM temp.fts_terms").all() as { term: string }[]).map((r) => r.term);
}

const CONTENT = [...Object.values(MARKERS), ...INDEXED_WORDS];

test("before deletion the scans do find every kind of content (so they can fail)", () => {
  const db = new Database(join(server.dataDir, "verbatim.db"));
  try {
    const kinds = new Set(needlesInRows(db, MARKERS).map((f) => f.split(": ")[1]));
    expect([...kinds].sort()).toEqual(Object.keys(MARKERS).sort());
    expect(indexedTerms(db)).toContain("zanzibar");
    expect(indexedTerms(db)).toContain("vellichor");
  } finally {
    db.close();
  }
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
  const db = new Database(join(server.dataDir, "verbatim.db"), { readonly: true });
  try {
    expect(needlesInRows(db, MARKERS)).toEqual([]);
    for (const term of ["zanzibar", "quorum", "number3", "spoken", "vellichor"]) expect(indexedTerms(db)).not.toContain(term);
    // The job row stays (ids, states, times), without the client's metadata.
    const job = db.query("SELECT meeting_id, status, metadata FROM jobs WHERE id = ?").get(jobId) as any;
    expect(job).toEqual({ meeting_id: meetingId, status: "completed", metadata: null });
    expect(db.query("SELECT count(*) AS n FROM events WHERE meeting_id = ?").get(meetingId)).toEqual({ n: 0 });
    expect(db.query("SELECT count(*) AS n FROM idempotency_keys").get()).toEqual({ n: 0 });
  } finally {
    db.close();
  }
  // Through the API the job still answers, with metadata null.
  const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
  expect(job).toMatchObject({ id: jobId, meeting_id: meetingId, metadata: null });
});

test("while the server runs, no file of the data dir (database, -wal, -shm, any other) holds the deleted meeting's content", async () => {
  expect(server.process.exitCode).toBeNull();
  expect(existsSync(join(dataDir, "verbatim.db-wal"))).toBe(true);
  expect(await needlesLeftAfter(CONTENT)).toEqual([]);
  // Later writes do not bring anything back (a WAL only rewound would still hold old frames past them).
  expect((await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: "http://127.0.0.1:9/later", events: ["document.failed"] } })).status).toBe(201);
  expect(needlesInFiles(dataDir, CONTENT)).toEqual([]);
}, 30_000);

test("a deleted webhook endpoint leaves no file of the data dir holding its URL, description or secret, while the server runs", async () => {
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
  expect(existsSync(join(dataDir, "verbatim.db"))).toBe(true);
  expect(needlesInFiles(dataDir, CONTENT)).toEqual([]);
});

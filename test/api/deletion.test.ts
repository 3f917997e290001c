// Deletion deletes (issue 8, item 5): after DELETE /v1/meetings/{id} no row of any table, and no
// byte of the database file, holds the meeting's title, transcript, report, participants, emails,
// tags or metadata. Real server, real SQLite file, engine doubles for a transcript and a report.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";
import { undecodableRecording } from "../helpers/recordings.ts";

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
};

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-deletion-"));
let server: TestServer;
let key: string;
let meetingId: string;
let jobId: string;

beforeAll(async () => {
  // A data dir of the test's own: the server's file is read after it stops.
  server = await startServer({ dataDir, args: ["--engines", "test/doubles/engines.ts"], env: { TEST_ENGINE_BEHAVIOR: "" } });
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
  for (let i = 0; i < 300; i++) {
    const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
    if (job.status === "completed") break;
    await Bun.sleep(100);
  }
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
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Every text and blob value of every row of every table (FTS shadow tables included). */
function markersInRows(db: Database): string[] {
  const found: string[] = [];
  const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  for (const { name } of tables) {
    let rows: Record<string, unknown>[];
    try {
      rows = db.query(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[];
    } catch {
      continue; // a virtual table that cannot be scanned directly (its shadow tables are)
    }
    for (const row of rows) {
      for (const value of Object.values(row)) {
        const text = value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : String(value);
        for (const [kind, marker] of Object.entries(MARKERS)) {
          if (text.toLowerCase().includes(marker.toLowerCase())) found.push(`${name}: ${kind}`);
        }
      }
    }
  }
  return found;
}

/** Terms left in the full-text index, read through an fts5vocab table. */
function indexedTerms(db: Database): string[] {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, meetings_fts, row)");
  return (db.query("SELECT term FROM temp.fts_terms").all() as { term: string }[]).map((r) => r.term);
}

test("before deletion the scans do find every kind of content (so they can fail)", () => {
  const db = new Database(join(server.dataDir, "verbatim.db"));
  try {
    // Into the main file: what deletion leaves behind must be looked for there, not only in the WAL.
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(join(server.dataDir, "verbatim.db")).toString("latin1");
    expect(bytes).toContain(MARKERS.title);
    for (const word of ["zanzibar", "quorum"]) expect(bytes).toContain(word);
    const kinds = new Set(markersInRows(db).map((f) => f.split(": ")[1]));
    expect([...kinds].sort()).toEqual(Object.keys(MARKERS).sort());
    expect(indexedTerms(db)).toContain("zanzibar");
  } finally {
    db.close();
  }
});

test("after DELETE no row of any table holds the meeting's content, and the index has no term of it", async () => {
  const response = await server.api(`/api/v1/meetings/${meetingId}`, { method: "DELETE", key });
  expect(response.status).toBe(204);
  const db = new Database(join(server.dataDir, "verbatim.db"));
  try {
    expect(markersInRows(db)).toEqual([]);
    for (const term of ["zanzibar", "quorum", "number3", "spoken"]) expect(indexedTerms(db)).not.toContain(term);
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

test("after the server stops, no byte of the database file holds the deleted content", async () => {
  await server.stop();
  const path = join(server.dataDir, "verbatim.db");
  const files = [path, `${path}-wal`].filter(existsSync);
  expect(files).toContain(path);
  // The content was in this file before the deletion (checkpointed by the first test).
  for (const file of files) {
    const bytes = readFileSync(file).toString("latin1");
    for (const [kind, marker] of Object.entries(MARKERS)) {
      expect({ file, kind, found: bytes.includes(marker) || bytes.includes(marker.toLowerCase()) }).toEqual({ file, kind, found: false });
    }
    // The full-text index keeps words one by one, lowercased: look for the title's words too.
    for (const word of ["zanzibar", "quorum"]) expect({ file, word, found: bytes.includes(word) }).toEqual({ file, word, found: false });
  }
});

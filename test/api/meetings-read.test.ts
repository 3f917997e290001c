// Meetings over real HTTP: the filtered list and full-text search, GET one, PATCH, participants,
// transcript and summary formats, DELETE, account isolation (404, never 403) and scopes.
// Data comes two ways: real uploads processed by the engine doubles, and rows written straight
// into the server's SQLite file (reindexed like the service does) for exact times and statuses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findUserByEmail } from "../../src/auth/user-store.ts";
import { createClient } from "../../src/clients/service.ts";
import type { Queryable } from "../../src/db/client.ts";
import { reindexMeeting } from "../../src/meetings/search-index-store.ts";
import { meetings, meetingTags, participants, reports, transcripts, type MEETING_STATUSES } from "../../src/meetings/table.ts";
import { SAMPLE_META, SAMPLE_TRANSCRIPT } from "../fixtures/transcripts/sample.ts";
import { inTransaction, onDatabase, queryRows } from "../helpers/query.ts";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";

const WAV = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const FIXTURES = join(ROOT, "test/fixtures/transcripts");
const SERVER_ARGS = [
  "--rate-limits",
  "pro=100000,free=100000,standard=100000,anonymous=100000",
  "--parallel-slots",
  "free=50,standard=50,pro=50",
  "--engines",
  "test/doubles/engines.ts",
];

type Status = (typeof MEETING_STATUSES)[number];
type Json = any;

let server: TestServer; // engine doubles at full speed
let slow: TestServer; // transcription and report take seconds: the "not yet" states over HTTP
let ownerKey: string;
let otherKey: string;
let filterKey: string; // an account holding only seeded rows, for exact filter results
let bulkKey: string; // 510 seeded meetings, for the status scan limit
let readerKey: string; // owner's key with read:meetings only
let transcriptReaderKey: string; // owner's key with read:transcripts only
let slowKey: string;
let scratch: string;

// Uploaded (real processing) meetings.
const up: Record<"full" | "patch" | "only" | "del" | "speakers" | "other", { id: string; jobId: string }> = {} as never;
// Seeded rows.
let sampleId: string;
let pendingId: string; // processing, no transcript nor report
const F: Record<string, string> = {};
let acmeId: number;
let globexId: number;
let ownerAcme: Json;
const bulkIds: string[] = [];

// ---------------------------------------------------------------- helpers

async function upload(s: TestServer, key: string, fields: Record<string, string>): Promise<Json> {
  const form = new FormData();
  form.set("file", Bun.file(WAV), "meeting-fr-2spk.wav");
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = await s.api("/api/v1/meetings", { method: "POST", key, body: form });
  const body = (await response.json()) as Json;
  if (response.status !== 202) throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function getJson(s: TestServer, path: string, key: string, status = 200): Promise<Json> {
  const response = await s.api(path, { key });
  const body = await response.json();
  if (response.status !== status) throw new Error(`GET ${path} answered ${response.status}, not ${status}: ${JSON.stringify(body)}`);
  return body;
}

async function waitForMeeting(s: TestServer, key: string, id: string, done = (m: Json) => m.status === "completed" || m.status === "failed") {
  const until = Date.now() + 30_000;
  for (;;) {
    const meeting = await getJson(s, `/api/v1/meetings/${id}`, key);
    if (done(meeting)) return meeting;
    if (Date.now() > until) throw new Error(`meeting ${id} stuck in ${meeting.status}`);
    await Bun.sleep(50);
  }
}

async function patch(id: string, json: unknown, key = ownerKey, s = server) {
  return s.api(`/api/v1/meetings/${id}`, { method: "PATCH", key, json });
}

async function patchOk(id: string, json: unknown): Promise<Json> {
  const response = await patch(id, json);
  const body = (await response.json()) as Json;
  if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Every meeting of a filtered list, walking pages; checks the envelope on the way. */
async function listAll(query: string, key: string, limit = 100, s = server): Promise<Json[]> {
  const seen: Json[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = query ? "&" : "";
    const page = await getJson(s, `/api/v1/meetings?${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, key);
    expect(page.data.length).toBeLessThanOrEqual(limit);
    expect(page.has_more).toBe(page.next_cursor !== null);
    if (page.has_more) expect(page.data).toHaveLength(limit);
    seen.push(...page.data);
    cursor = page.next_cursor;
    if (++pages > 50) throw new Error("too many pages");
  } while (cursor);
  return seen;
}

const ids = (list: Json[]) => list.map((m) => m.id);

/** The ids of seeded filter meetings, newest first (created_at, then id, descending). */
function ordered(...names: string[]): string[] {
  return names
    .map((n) => ({ id: F[n]!, at: seededAt[n]! }))
    .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
    .map((m) => m.id);
}
const seededAt: Record<string, number> = {};

interface Seed {
  id?: string;
  title: string;
  status?: Status;
  createdAt: number;
  recordedAt?: number;
  tags?: string[];
  clientId?: number | null;
  report?: string;
  transcript?: string[];
}

/** A meeting row with its tags, transcript and report, indexed for search like the service does. */
async function seedMeeting(db: Queryable, userId: string, seed: Seed): Promise<string> {
  const id = seed.id ?? crypto.randomUUID();
  await db
    .insert(meetings)
    .values({
      id,
      userId,
      title: seed.title,
      titleSource: "user",
      status: seed.status ?? "completed",
      createdAt: seed.createdAt,
      updatedAt: seed.createdAt,
      recordedAt: seed.recordedAt ?? seed.createdAt,
      source: "upload",
      recordingType: "meeting",
      clientId: seed.clientId ?? null,
    });
  for (const tag of seed.tags ?? []) await db.insert(meetingTags).values({ meetingId: id, tag });
  if (seed.transcript) {
    const segments = seed.transcript.map((text, i) => ({ start: i * 4, end: i * 4 + 3, speaker: `SPEAKER_0${i % 2}`, text }));
    await db.insert(transcripts).values({
      meetingId: id,
      language: "en",
      durationSeconds: seed.transcript.length * 4,
      model: "seed",
      speakers: [...new Set(segments.map((s) => s.speaker))],
      segments,
      createdAt: seed.createdAt,
    });
  }
  if (seed.report !== undefined) {
    await db
      .insert(reports)
      .values({ meetingId: id, title: "Seeded report", language: "en", markdown: seed.report, structured: null, model: "seed", createdAt: seed.createdAt, updatedAt: seed.createdAt });
  }
  await reindexMeeting(db, id);
  return id;
}

function ffmpegReads(path: string) {
  const run = Bun.spawnSync(["ffmpeg", "-v", "error", "-i", path, "-f", "srt", "-"], { stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, stderr: run.stderr.toString(), stdout: run.stdout.toString() };
}

// ---------------------------------------------------------------- setup

const T = Date.parse("2025-01-01T00:00:00.000Z");
const R = Date.parse("2024-06-01T00:00:00.000Z");
const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "meetings-read-"));
  [server, slow] = await Promise.all([
    startServer({ args: SERVER_ARGS }),
    startServer({ args: SERVER_ARGS, env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=4000;summarize:slow=2500" } }),
  ]);
  [ownerKey, otherKey, filterKey, bulkKey, slowKey] = await Promise.all([
    createUserWithKey(server, "owner@example.com"),
    createUserWithKey(server, "other@example.com"),
    createUserWithKey(server, "filters@example.com"),
    createUserWithKey(server, "bulk@example.com"),
    createUserWithKey(slow, "slow@example.com"),
  ]);
  const scoped = async (name: string, scopes: string) => {
    const out = await server.admin("key", "create", "--email", "owner@example.com", "--name", name, "--scopes", scopes, "--json");
    if (out.code !== 0) throw new Error(out.stderr);
    return (JSON.parse(out.stdout) as { key: string }).key;
  };
  [readerKey, transcriptReaderKey] = await Promise.all([scoped("reader", "read:meetings"), scoped("transcripts", "read:transcripts")]);

  // Real uploads, processed concurrently by the doubles.
  const uploads = await Promise.all([
    upload(server, ownerKey, {
      title: "Réunion Budget",
      tags: "a,b",
      client: JSON.stringify({ name: "Acme Corp", email: "acme@example.com" }),
      participants: JSON.stringify([{ name: "Zoe", email: "zoe@example.com" }]),
      metadata: JSON.stringify({ ref: 1 }),
      recorded_at: "2025-02-03T10:00:00Z",
    }),
    upload(server, ownerKey, {}),
    upload(server, ownerKey, { title: "Dictation memo", transcribe_only: "true" }),
    upload(server, ownerKey, { title: "Doomed meeting" }),
    upload(server, ownerKey, { title: "Speakers meeting" }),
    upload(server, otherKey, { title: "Réunion secrète", tags: "a" }),
  ]);
  (["full", "patch", "only", "del", "speakers", "other"] as const).forEach((name, i) => {
    up[name] = { id: uploads[i].id, jobId: uploads[i].job.id };
  });

  // Seeded rows.
  const bulk = await onDatabase(server, async (db) => {
    const owner = (await findUserByEmail(db, "owner@example.com"))!;
    const filters = (await findUserByEmail(db, "filters@example.com"))!;

    sampleId = await seedMeeting(db, owner.id, {
      id: SAMPLE_TRANSCRIPT.meeting_id,
      title: SAMPLE_META.title,
      createdAt: T - 10 * H,
      recordedAt: Date.parse(SAMPLE_META.recordedAt),
    });
    await db.insert(transcripts).values({
      meetingId: sampleId,
      language: SAMPLE_TRANSCRIPT.language,
      durationSeconds: SAMPLE_TRANSCRIPT.duration_seconds,
      model: SAMPLE_TRANSCRIPT.model,
      speakers: SAMPLE_TRANSCRIPT.speakers,
      segments: SAMPLE_TRANSCRIPT.segments.map(({ start, end, speaker, text }) => ({ start, end, speaker, text })),
      speakerTurns: SAMPLE_TRANSCRIPT.speaker_turns,
      createdAt: T,
    });
    await db.insert(participants).values({ meetingId: sampleId, name: "Élodie Martin", email: null, speakerLabels: ["SPEAKER_00"] });
    await reindexMeeting(db, sampleId);
    pendingId = await seedMeeting(db, owner.id, { title: "Still processing", status: "processing", createdAt: T - 11 * H });

    acmeId = (await createClient(db, filters.id, { name: "Acme Corp" })).id;
    globexId = (await createClient(db, filters.id, { name: "Globex" })).id;
    const seeds: Record<string, Seed> = {
      F1: { title: "Réunion Budget", createdAt: T, recordedAt: R + 5 * H, status: "completed", tags: ["alpha", "beta"], clientId: acmeId, report: "# Notes\n\nTalked about the zeppelin fleet.", transcript: ["The quokka smiled.", "Nothing else."] },
      F2: { title: "Weekly sync", createdAt: T + 1000, recordedAt: R + 4 * H, status: "failed", tags: ["alpha"], clientId: globexId, transcript: ["Un café très naïf."] },
      F3: { title: "Budget review", createdAt: T + 2000, recordedAt: R + 3 * H, status: "processing", tags: ["beta"] },
      F4: { title: "Retrospective", createdAt: T + 3000, recordedAt: R + 2 * H, status: "queued", tags: ["alpha", "beta", "gamma"], clientId: acmeId },
      F5: { title: "Strategy day", createdAt: T + 4000, recordedAt: R + 1 * H, status: "completed", tags: ["alpha"], clientId: acmeId, report: "Plain report.", transcript: ["Nothing special."] },
      F6: { title: "Hiring plan", createdAt: T + 4000, recordedAt: R, status: "completed", tags: ["alpha"], report: "Hiring.", transcript: ["We hire."] },
      F7: { title: "Offsite", createdAt: T + 4000, recordedAt: R + 6 * H, status: "draft", tags: ["alpha", "beta"], clientId: globexId },
    };
    for (const [name, seed] of Object.entries(seeds)) {
      F[name] = await seedMeeting(db, filters.id, seed);
      seededAt[name] = seed.createdAt;
    }
    return (await findUserByEmail(db, "bulk@example.com"))!;
  });

  // 510 meetings: the 10 oldest failed, one failed among the 500 most recent.
  await inTransaction(server, async (tx) => {
    for (let i = 0; i < 510; i++) {
      const status: Status = i < 10 || i === 300 ? "failed" : "completed";
      bulkIds.push(await seedMeeting(tx, bulk.id, { title: `Bulk ${i}`, createdAt: T + i * 1000, status }));
    }
  });

  await Promise.all(Object.values(up).map((m) => waitForMeeting(server, m.id === up.other.id ? otherKey : ownerKey, m.id)));
  ownerAcme = (await getJson(server, `/api/v1/meetings/${up.full.id}`, ownerKey)).client;
  // Two servers, ten admin commands and six uploads: on PostgreSQL under load this set-up alone passed 60 s.
}, 180_000);

afterAll(async () => {
  await Promise.all([server?.stop(), slow?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// ---------------------------------------------------------------- while processing (slow engines)

describe("while a meeting is processing", () => {
  test("transcript and summary answer 409, labels cannot be attributed, a PATCHed title survives the report, a delete cancels", async () => {
    const pinned = await upload(slow, slowKey, {}); // no title: the file name, to be replaced by the report's title
    const doomed = await upload(slow, slowKey, { title: "Canceled midway" });
    expect(pinned.title).toBe("meeting-fr-2spk");

    await expectProblem(await slow.api(`/api/v1/meetings/${pinned.id}/transcript`, { key: slowKey }), 409, "transcript_not_ready");
    await expectProblem(await slow.api(`/api/v1/meetings/${pinned.id}/transcript?format=srt`, { key: slowKey }), 409, "transcript_not_ready");
    await expectProblem(await slow.api(`/api/v1/meetings/${pinned.id}/summary`, { key: slowKey }), 409, "summary_not_ready");
    const labels = await expectProblem(
      await patch(pinned.id, { participants: { add: [{ name: "Early", speaker_labels: ["SPEAKER_00"] }] } }, slowKey, slow),
      400,
      "validation_error",
    );
    expect((labels.errors as Json[]).map((e) => e.field)).toEqual(["participants.add[0].speaker_labels[0]"]);
    expect((await getJson(slow, `/api/v1/meetings/${pinned.id}/participants`, slowKey)).data).toEqual([]);

    const renamed = await patch(pinned.id, { title: "Pinned title" }, slowKey, slow);
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as Json).title).toBe("Pinned title");

    // Delete the other one while it runs: 204, its job canceled, its folder gone.
    expect(existsSync(join(slow.dataDir, "meetings", doomed.id))).toBe(true);
    const deleted = await slow.api(`/api/v1/meetings/${doomed.id}`, { method: "DELETE", key: slowKey });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await getJson(slow, `/api/v1/jobs/${doomed.job.id}`, slowKey)).status).toBe("canceled");
    expect(existsSync(join(slow.dataDir, "meetings", doomed.id))).toBe(false);
    await expectProblem(await slow.api(`/api/v1/meetings/${doomed.id}`, { key: slowKey }), 404, "not_found");

    // Transcript first (stage summarizing), report still pending.
    const summarizing = await waitForMeeting(slow, slowKey, pinned.id, (m) => m.has_transcript || m.status === "completed" || m.status === "failed");
    expect(summarizing.status).toBe("processing");
    expect(summarizing.job.stage).toBe("summarizing");
    expect((await slow.api(`/api/v1/meetings/${pinned.id}/transcript?format=txt`, { key: slowKey })).status).toBe(200);
    await expectProblem(await slow.api(`/api/v1/meetings/${pinned.id}/summary?format=md`, { key: slowKey }), 409, "summary_not_ready");

    const done = await waitForMeeting(slow, slowKey, pinned.id);
    expect(done.status).toBe("completed");
    expect(done.summary.title).toBe("Double report of 7 segments");
    expect(done.title).toBe("Pinned title");
    // The canceled job stayed canceled after its worker was stopped.
    const job = await getJson(slow, `/api/v1/jobs/${doomed.job.id}`, slowKey);
    expect(job.status).toBe("canceled");
    expect((await slow.api(`/api/v1/meetings/${doomed.id}/transcript`, { key: slowKey })).status).toBe(404);
  }, 30_000);
});

// ---------------------------------------------------------------- list filters

describe("GET /v1/meetings filters", () => {
  const list = async (query: string, key = filterKey) => ids(await listAll(query, key));

  test("q searches title, AI report and transcript, ignoring case and accents, by prefix", async () => {
    expect(await list("q=reunion")).toEqual([F.F1]);
    expect(await list("q=R%C3%89UNION")).toEqual([F.F1]);
    expect(await list("q=BUDGET")).toEqual(ordered("F1", "F3"));
    expect(await list("q=budg")).toEqual(ordered("F1", "F3"));
    expect(await list("q=zeppelin")).toEqual([F.F1]); // AI report only
    expect(await list("q=ZEPP")).toEqual([F.F1]);
    expect(await list("q=quokka")).toEqual([F.F1]); // transcript only
    expect(await list("q=cafe")).toEqual([F.F2]); // "café" in the transcript
    expect(await list("q=NAIF")).toEqual([F.F2]);
    expect(await list("q=budget%20review")).toEqual([F.F3]); // every word required
    expect(await list("q=retro")).toEqual([F.F4]);
    expect(await list("q=zzzunknown")).toEqual([]);
  });

  test("q searches real processed transcripts and reports, and only the caller's meetings", async () => {
    const spoken = await list("q=spoken", ownerKey);
    for (const m of [up.full, up.patch, up.only, up.speakers]) expect(spoken).toContain(m.id);
    expect(spoken).not.toContain(up.other.id);
    expect(await list("q=SPOK", ownerKey)).toEqual(spoken);
    // "Double report of 7 segments" is in the reports; the transcribe_only meeting has none.
    const reports = await list("q=double", ownerKey);
    expect(reports).toContain(up.full.id);
    expect(reports).not.toContain(up.only.id);
    expect(await list("q=spoken", otherKey)).toEqual([up.other.id]);
    expect(await list("q=secrete", ownerKey)).toEqual([]);
    expect(await list("q=secrete", otherKey)).toEqual([up.other.id]);
    expect(await list("q=reunion", ownerKey)).toEqual([up.full.id]);
  });

  test("quotes and FTS operators in q are plain text", async () => {
    for (const q of ['"NEAR OR', '"', "budget\" OR \"x", "NEAR(budget review)", "*", "-budget", "budget)", "a:b", "^budget", "'; DROP TABLE meetings; --"]) {
      const response = await server.api(`/api/v1/meetings?q=${encodeURIComponent(q)}`, { key: filterKey });
      expect(response.status).toBe(200);
      expect(Array.isArray(((await response.json()) as Json).data)).toBe(true);
    }
    expect(await list(`q=${encodeURIComponent('"budget')}`)).toEqual(ordered("F1", "F3"));
    expect(await list(`q=${encodeURIComponent("budget)")}`)).toEqual(ordered("F1", "F3"));
    expect(await list(`q=${encodeURIComponent("review*")}`)).toEqual([F.F3]);
    expect(await list(`q=${encodeURIComponent('"NEAR OR')}`)).toEqual([]);
    expect(await list(`q=${encodeURIComponent("budget OR hiring")}`)).toEqual([]); // OR is a word, not an operator
  });

  test("q is bounded: at most 12 words (400 beyond), and a one-letter word is no prefix", async () => {
    const many = await server.api(`/api/v1/meetings?q=${encodeURIComponent("w ".repeat(13).trim())}`, { key: filterKey });
    expect(many.status).toBe(400);
    expect(((await many.json()) as Json).errors).toEqual([expect.objectContaining({ field: "q", code: "too_many_terms" })]);
    // "b" would match budget as a prefix; as a whole word it matches nothing here.
    expect(await list("q=b")).toEqual([]);
    expect(await list("q=budget")).toEqual(ordered("F1", "F3"));
  });

  test("client by cli_ id or by exact name; unknown or another account's client lists nothing", async () => {
    const acme = ordered("F1", "F4", "F5");
    expect(await list(`client=cli_${acmeId}`)).toEqual(acme);
    expect(await list(`client=${encodeURIComponent("Acme Corp")}`)).toEqual(acme);
    expect(await list("client=Globex")).toEqual(ordered("F2", "F7"));
    expect(await list("client=Nobody")).toEqual([]);
    expect(await list("client=cli_999999")).toEqual([]);
    expect(ownerAcme.id).not.toBe(`cli_${acmeId}`);
    expect(await list(`client=${ownerAcme.id}`)).toEqual([]); // the owner's Acme, not this account's
    expect(await list(`client=${ownerAcme.id}`, ownerKey)).toEqual([up.full.id]);
    expect(await list(`client=${encodeURIComponent("Acme Corp")}`, ownerKey)).toEqual([up.full.id]);
  });

  test("created_after is inclusive and created_before strict, at exact boundaries", async () => {
    expect(await list(`created_after=${iso(T + 1000)}`)).toEqual(ordered("F2", "F3", "F4", "F5", "F6", "F7"));
    expect(await list(`created_after=${iso(T + 1001)}`)).toEqual(ordered("F3", "F4", "F5", "F6", "F7"));
    expect(await list(`created_before=${iso(T + 1000)}`)).toEqual([F.F1]);
    expect(await list(`created_before=${iso(T + 1001)}`)).toEqual(ordered("F1", "F2"));
    expect(await list(`created_before=${iso(T)}`)).toEqual([]);
    // The same instant written with an offset.
    expect(await list(`created_after=${encodeURIComponent("2025-01-01T01:00:01+01:00")}`)).toEqual(ordered("F2", "F3", "F4", "F5", "F6", "F7"));
    expect(await list(`created_after=${iso(T + 4000)}&created_before=${iso(T + 4001)}`)).toEqual(ordered("F5", "F6", "F7"));
    expect(await list(`created_after=${iso(T + 4000)}&created_before=${iso(T + 4000)}`)).toEqual([]);
  });

  test("recorded_after is inclusive and recorded_before strict, on recorded_at rather than created_at", async () => {
    expect(await list(`recorded_after=${iso(R + 4 * H)}`)).toEqual(ordered("F1", "F2", "F7"));
    expect(await list(`recorded_before=${iso(R + 4 * H)}`)).toEqual(ordered("F3", "F4", "F5", "F6"));
    expect(await list(`recorded_after=${iso(R + H)}&recorded_before=${iso(R + 3 * H)}`)).toEqual(ordered("F4", "F5"));
    expect(await list(`recorded_after=${iso(R + 6 * H + 1)}`)).toEqual([]);
    expect(await list(`recorded_before=${iso(R)}`)).toEqual([]);
    expect(await list(`recorded_after=${iso(R)}&recorded_before=${iso(R + 1)}`)).toEqual([F.F6]);
  });

  test("status filters by status", async () => {
    expect(await list("status=completed")).toEqual(ordered("F1", "F5", "F6"));
    expect(await list("status=failed")).toEqual([F.F2]);
    expect(await list("status=processing")).toEqual([F.F3]);
    expect(await list("status=queued")).toEqual([F.F4]);
    expect(await list("status=draft")).toEqual([F.F7]);
  });

  test("status only scans the 500 most recent meetings", async () => {
    // The 10 oldest exist and are failed: the list without status shows them.
    const oldest = await listAll(`created_before=${iso(T + 10_000)}`, bulkKey);
    expect(oldest.map((m) => m.status)).toEqual(Array(10).fill("failed"));
    expect(ids(oldest).sort()).toEqual(bulkIds.slice(0, 10).sort());
    // With status=failed only the failed one among the 500 most recent is found.
    expect(ids(await listAll("status=failed", bulkKey))).toEqual([bulkIds[300]]);
    const firstPage = await getJson(server, "/api/v1/meetings?status=completed&limit=100", bulkKey);
    expect(firstPage.data[0].id).toBe(bulkIds[509]);
    expect(firstPage.has_more).toBe(true);
  });

  test("tag is repeatable and every listed tag is required", async () => {
    expect(await list("tag=alpha&tag=beta")).toEqual(ordered("F1", "F4", "F7"));
    expect(await list("tag=beta&tag=alpha&tag=gamma")).toEqual([F.F4]);
    expect(await list("tag=beta")).toEqual(ordered("F1", "F3", "F4", "F7"));
    expect(await list("tag=alpha&tag=delta")).toEqual([]);
    expect(await list("tag=alpha&tag=alpha")).toEqual(ordered("F1", "F2", "F4", "F5", "F6", "F7"));
  });

  test("filters combine with AND", async () => {
    expect(await list(`tag=alpha&client=${encodeURIComponent("Acme Corp")}&status=completed`)).toEqual(ordered("F1", "F5"));
    expect(await list(`tag=alpha&client=cli_${acmeId}&status=completed&created_after=${iso(T + 1000)}`)).toEqual([F.F5]);
    expect(await list("q=budget&tag=alpha")).toEqual([F.F1]);
    expect(await list(`recorded_before=${iso(R + 5 * H)}&tag=beta&client=cli_${acmeId}`)).toEqual([F.F4]);
    expect(await list(`q=budget&status=processing&created_before=${iso(T + 2000)}`)).toEqual([]);
  });

  test("a filtered list walks in pages of 2 with no duplicates or gaps, newest first", async () => {
    const expected = ordered("F1", "F2", "F4", "F5", "F6", "F7");
    const first = await getJson(server, "/api/v1/meetings?tag=alpha&limit=2", filterKey);
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    expect(typeof first.next_cursor).toBe("string");
    const walked = await listAll("tag=alpha", filterKey, 2);
    expect(ids(walked)).toEqual(expected);
    expect(new Set(ids(walked)).size).toBe(expected.length);
    expect(ids(await listAll("", filterKey, 2))).toEqual(ordered("F1", "F2", "F3", "F4", "F5", "F6", "F7"));
    expect(ids(await listAll("q=budget", filterKey, 1))).toEqual(ordered("F1", "F3"));
    // Items are full meeting objects.
    expect(walked.every((m) => m.object === "meeting" && Array.isArray(m.tags) && m.tags.includes("alpha"))).toBe(true);
  });

  test("bad filter values answer 400 validation_error naming the field", async () => {
    for (const [query, field] of [
      ["created_after=yesterday", "created_after"],
      ["created_before=2025-01-01", "created_before"],
      ["recorded_after=2025-13-01T00:00:00Z", "recorded_after"],
      ["recorded_before=soon", "recorded_before"],
      ["status=running", "status"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["cursor=garbage", "cursor"],
    ]) {
      const body = await expectProblem(await server.api(`/api/v1/meetings?${query}`, { key: filterKey }), 400, "validation_error");
      expect((body.errors as Json[]).map((e) => e.field)).toEqual([field!]);
    }
  });
});

// ---------------------------------------------------------------- GET one

describe("GET /v1/meetings/{id}", () => {
  test("the full object: report, participants, documents, job, client, web_url, flags", async () => {
    const response = await server.api(`/api/v1/meetings/${up.full.id}`, { key: ownerKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const m = (await response.json()) as Json;
    expect(m).toMatchObject({
      id: up.full.id,
      object: "meeting",
      title: "Réunion Budget",
      status: "completed",
      transcribe_only: false,
      recorded_at: "2025-02-03T10:00:00.000Z",
      duration_seconds: 29,
      source: "upload",
      recording_type: "meeting",
      tags: ["a", "b"],
      has_transcript: true,
      has_summary: true,
      documents: [],
      metadata: { ref: 1 },
    });
    expect(m.client).toMatchObject({ object: "client", name: "Acme Corp", email: "acme@example.com", is_archived: false });
    expect(m.client.id).toMatch(/^cli_\d+$/);
    expect(m.participants).toEqual([{ id: expect.stringMatching(/^par_\d+$/), object: "participant", name: "Zoe", email: "zoe@example.com", speaker_labels: [] }]);
    expect(m.summary).toMatchObject({ object: "summary", meeting_id: up.full.id, title: "Double report of 7 segments", model: "double-llm" });
    expect(typeof m.summary.markdown).toBe("string");
    expect(m.job).toMatchObject({ id: up.full.jobId, object: "job", kind: "meeting_processing", status: "completed", stage: "done", meeting_id: up.full.id, metadata: { ref: 1 } });
    expect(m.web_url).toBe(`${server.url}/meetings/${up.full.id}`);
    for (const field of ["created_at", "updated_at", "recorded_at"]) expect(Number.isNaN(Date.parse(m[field]))).toBe(false);
    // The list shows the same object.
    const listed = (await listAll("q=reunion", ownerKey)).find((x) => x.id === up.full.id);
    expect(listed).toEqual(m);
  });

  test("a transcribe_only meeting completes with a transcript and no report", async () => {
    const m = await getJson(server, `/api/v1/meetings/${up.only.id}`, ownerKey);
    expect(m).toMatchObject({ status: "completed", transcribe_only: true, has_transcript: true, has_summary: false, summary: null });
    expect(m.job).toMatchObject({ status: "completed", transcribe_only: true });
  });

  test("a seeded meeting without transcript or job", async () => {
    const m = await getJson(server, `/api/v1/meetings/${pendingId}`, ownerKey);
    expect(m).toMatchObject({ status: "processing", has_transcript: false, has_summary: false, summary: null, job: null, participants: [], documents: [], client: null });
  });

  test("an unknown meeting is 404, and so is a malformed id (like any id that is not the caller's)", async () => {
    await expectProblem(await server.api(`/api/v1/meetings/${crypto.randomUUID()}`, { key: ownerKey }), 404, "not_found");
    await expectProblem(await server.api("/api/v1/meetings/not-a-uuid", { key: ownerKey }), 404, "not_found");
  });
});

// ---------------------------------------------------------------- PATCH

describe("PATCH /v1/meetings/{id}", () => {
  let summaryBefore: Json;
  let labelsOf: (m: Json, name: string) => string[];

  beforeAll(async () => {
    summaryBefore = await getJson(server, `/api/v1/meetings/${up.patch.id}/summary`, ownerKey);
    labelsOf = (m, name) => m.participants.find((p: Json) => p.name === name)?.speaker_labels;
  });

  test("title replaces the AI title and is pinned (source user); search follows", async () => {
    const before = await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey);
    expect(before.title).toBe("Double report of 7 segments"); // no title given: the report's
    const m = await patchOk(up.patch.id, { title: "  Kangaroo planning  " });
    expect(m.title).toBe("Kangaroo planning");
    const [row] = await onDatabase(server, (q) => q.select().from(meetings).where(eq(meetings.id, up.patch.id)));
    expect(row!.titleSource).toBe("user");
    expect(row!.title).toBe("Kangaroo planning");
    expect(Date.parse(m.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect(ids(await listAll("q=kangaroo", ownerKey))).toEqual([up.patch.id]);
  });

  test("recorded_at", async () => {
    const m = await patchOk(up.patch.id, { recorded_at: "2024-02-03T04:05:06+02:00" });
    expect(m.recorded_at).toBe("2024-02-03T02:05:06.000Z");
    expect(ids(await listAll(`recorded_after=2024-02-03T02:05:06Z&recorded_before=2024-02-03T02:05:07Z`, ownerKey))).toEqual([up.patch.id]);
  });

  test("tags replace all tags; [] removes all", async () => {
    expect((await patchOk(up.patch.id, { tags: ["x", "y", "x"] })).tags).toEqual(["x", "y"]);
    expect(ids(await listAll("tag=x&tag=y", ownerKey))).toEqual([up.patch.id]);
    expect((await patchOk(up.patch.id, { tags: ["z"] })).tags).toEqual(["z"]);
    expect(ids(await listAll("tag=x", ownerKey))).toEqual([]);
    expect((await patchOk(up.patch.id, { tags: [] })).tags).toEqual([]);
    expect(ids(await listAll("tag=z", ownerKey))).toEqual([]);
  });

  test("client: find or create by name, attach by id, null detaches", async () => {
    const created = await patchOk(up.patch.id, { client: { name: "Initech", phone: "+33 1 23 45 67 89" } });
    expect(created.client).toMatchObject({ object: "client", name: "Initech", phone: "+33 1 23 45 67 89" });
    const initech = created.client.id;
    expect(initech).toMatch(/^cli_\d+$/);
    // The same name again reuses the client.
    expect((await patchOk(up.only.id, { client: { name: "Initech" } })).client.id).toBe(initech);
    expect(ids(await listAll(`client=${initech}`, ownerKey)).sort()).toEqual([up.patch.id, up.only.id].sort());
    // Attach an existing one by id.
    expect((await patchOk(up.patch.id, { client_id: ownerAcme.id })).client.id).toBe(ownerAcme.id);
    expect(ids(await listAll(`client=${initech}`, ownerKey))).toEqual([up.only.id]);
    // Detach, both ways.
    expect((await patchOk(up.patch.id, { client_id: null })).client).toBeNull();
    expect((await patchOk(up.only.id, { client: null })).client).toBeNull();
    expect(ids(await listAll(`client=${initech}`, ownerKey))).toEqual([]);
    // Another account's client cannot be attached.
    const foreign = await patch(up.patch.id, { client_id: `cli_${acmeId}` });
    expect([400, 404]).toContain(foreign.status);
    expect((await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey)).client).toBeNull();
    // Both at once is refused.
    const both = await expectProblem(await patch(up.patch.id, { client_id: initech, client: { name: "Initech" } }), 400, "validation_error");
    expect((both.errors as Json[]).map((e) => e.field)).toContain("client");
  });

  test("participants: add, update, remove; a label moves from one participant to another", async () => {
    let m = await patchOk(up.patch.id, {
      participants: {
        add: [
          { name: "Alice", email: "alice@example.com", speaker_labels: ["SPEAKER_00"] },
          { name: "Bob", speaker_labels: [] },
        ],
      },
    });
    expect(m.participants).toHaveLength(2);
    const alice = m.participants.find((p: Json) => p.name === "Alice");
    const bob = m.participants.find((p: Json) => p.name === "Bob");
    expect(alice).toEqual({ id: expect.stringMatching(/^par_\d+$/), object: "participant", name: "Alice", email: "alice@example.com", speaker_labels: ["SPEAKER_00"] });
    expect(bob).toMatchObject({ email: null, speaker_labels: [] });

    // Bob takes SPEAKER_00: Alice loses it.
    m = await patchOk(up.patch.id, { participants: { update: [{ id: bob.id, name: "Robert", speaker_labels: ["SPEAKER_00", "SPEAKER_01"] }] } });
    expect(labelsOf(m, "Robert")).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(labelsOf(m, "Alice")).toEqual([]);
    expect(m.participants.find((p: Json) => p.name === "Robert").id).toBe(bob.id);

    // A new participant takes SPEAKER_01 from Robert, who keeps SPEAKER_00.
    m = await patchOk(up.patch.id, { participants: { add: [{ name: "Carol", speaker_labels: ["SPEAKER_01"] }] } });
    expect(labelsOf(m, "Robert")).toEqual(["SPEAKER_00"]);
    expect(labelsOf(m, "Carol")).toEqual(["SPEAKER_01"]);

    // Update only the email: labels and name stay.
    m = await patchOk(up.patch.id, { participants: { update: [{ id: alice.id, email: "alice@corp.example" }] } });
    expect(m.participants.find((p: Json) => p.id === alice.id)).toEqual({ ...alice, email: "alice@corp.example", speaker_labels: [] });

    // Remove.
    m = await patchOk(up.patch.id, { participants: { remove: [alice.id] } });
    expect(m.participants.map((p: Json) => p.name).sort()).toEqual(["Carol", "Robert"]);
    const listing = await getJson(server, `/api/v1/meetings/${up.patch.id}/participants`, ownerKey);
    expect(listing.data.every((p: Json) => p.id !== null)).toBe(true); // every speaker is attributed now
  });

  test("wrong participant changes answer 400 with the field path and change nothing", async () => {
    const before = await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey);
    const robert = before.participants.find((p: Json) => p.name === "Robert");
    const cases: [unknown, string[]][] = [
      [{ participants: { add: [{ name: "Eve", speaker_labels: ["SPEAKER_07"] }] } }, ["participants.add[0].speaker_labels[0]"]],
      [{ participants: { update: [{ id: robert.id, speaker_labels: ["SPEAKER_00", "SPEAKER_09"] }] } }, ["participants.update[0].speaker_labels[1]"]],
      [
        { participants: { add: [{ name: "X", speaker_labels: ["SPEAKER_01"] }, { name: "Y", speaker_labels: ["SPEAKER_01"] }] } },
        ["participants.add[1].speaker_labels[0]"],
      ],
      [{ participants: { update: [{ id: robert.id, speaker_labels: ["SPEAKER_01"] }], add: [{ name: "Z", speaker_labels: ["SPEAKER_01"] }] } }, ["participants.add[0].speaker_labels[0]"]],
      [{ participants: { remove: ["par_999999"] } }, ["participants.remove[0]"]],
      [{ participants: { update: [{ id: "par_999999", name: "Nobody" }] } }, ["participants.update[0].id"]],
      [{ participants: { add: [{ name: "Bad", speaker_labels: ["speaker 0"] }] } }, ["participants.add[0].speaker_labels[0]"]],
      [{ title: "Never applied", participants: { remove: ["par_999999"] } }, ["participants.remove[0]"]],
    ];
    for (const [body, fields] of cases) {
      const problem = await expectProblem(await patch(up.patch.id, body), 400, "validation_error");
      expect((problem.errors as Json[]).map((e) => e.field)).toEqual(fields);
    }
    const after = await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey);
    expect(after).toEqual(before);
  });

  test("speaker labels before the transcript exists answer 400", async () => {
    const problem = await expectProblem(
      await patch(pendingId, { participants: { add: [{ name: "Early", speaker_labels: ["SPEAKER_00"] }] } }),
      400,
      "validation_error",
    );
    expect((problem.errors as Json[]).map((e) => e.field)).toEqual(["participants.add[0].speaker_labels[0]"]);
    // Without labels a participant can be added.
    const m = await patchOk(pendingId, { participants: { add: [{ name: "Early" }] } });
    expect(m.participants).toEqual([{ id: expect.stringMatching(/^par_\d+$/), object: "participant", name: "Early", email: null, speaker_labels: [] }]);
  });

  test("unknown fields and wrong values answer 400 naming the field", async () => {
    for (const [body, field] of [
      [{ foo: 1 }, "foo"],
      [{ title: "" }, "title"],
      [{ title: "x".repeat(301) }, "title"],
      [{ recorded_at: "tomorrow" }, "recorded_at"],
      [{ tags: "a,b" }, "tags"],
      [{ client_id: "acme" }, "client_id"],
      [{ participants: { add: [{ name: "A" }], rename: [] } }, "participants.rename"],
      [{ status: "completed" }, "status"],
    ] as const) {
      const problem = await expectProblem(await patch(up.patch.id, body), 400, "validation_error");
      expect((problem.errors as Json[]).map((e) => e.field)).toContain(field);
    }
    expect((await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey)).status).toBe("completed");
  });

  test("an empty body changes nothing", async () => {
    const before = await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey);
    await Bun.sleep(5); // a bumped updated_at would differ
    const m = await patchOk(up.patch.id, {});
    expect(m).toEqual(before);
    expect(m.updated_at).toBe(before.updated_at);
    expect(await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey)).toEqual(before);
  });

  test("the AI report is not regenerated by any PATCH", async () => {
    const after = await getJson(server, `/api/v1/meetings/${up.patch.id}/summary`, ownerKey);
    expect(after).toEqual(summaryBefore);
    expect(after.updated_at).toBe(summaryBefore.updated_at);
    expect(after.markdown).toBe(summaryBefore.markdown);
    expect((await getJson(server, `/api/v1/meetings/${up.patch.id}`, ownerKey)).summary).toEqual(summaryBefore);
  });
});

// ---------------------------------------------------------------- participants and attribution

describe("GET /v1/meetings/{id}/participants", () => {
  test("lists unattributed transcript speakers with id null, and attribution names the transcript", async () => {
    const initial = await getJson(server, `/api/v1/meetings/${up.speakers.id}/participants`, ownerKey);
    expect(Object.keys(initial)).toEqual(["data"]);
    expect(initial.data).toEqual([
      { id: null, object: "participant", name: "SPEAKER_00", email: null, speaker_labels: ["SPEAKER_00"] },
      { id: null, object: "participant", name: "SPEAKER_01", email: null, speaker_labels: ["SPEAKER_01"] },
    ]);
    const before = await getJson(server, `/api/v1/meetings/${up.speakers.id}/transcript`, ownerKey);
    expect(before.segments.every((s: Json) => s.speaker_name === null)).toBe(true);

    const m = await patchOk(up.speakers.id, { participants: { add: [{ name: "Alice Dupont", speaker_labels: ["SPEAKER_00"] }, { name: "Silent Sam" }] } });
    const alice = m.participants.find((p: Json) => p.name === "Alice Dupont");
    const sam = m.participants.find((p: Json) => p.name === "Silent Sam");
    const after = await getJson(server, `/api/v1/meetings/${up.speakers.id}/participants`, ownerKey);
    expect(after.data).toEqual([
      { id: alice.id, object: "participant", name: "Alice Dupont", email: null, speaker_labels: ["SPEAKER_00"] },
      { id: sam.id, object: "participant", name: "Silent Sam", email: null, speaker_labels: [] },
      { id: null, object: "participant", name: "SPEAKER_01", email: null, speaker_labels: ["SPEAKER_01"] },
    ]);

    const json = await getJson(server, `/api/v1/meetings/${up.speakers.id}/transcript?format=json`, ownerKey);
    expect(json.segments.length).toBe(7);
    for (const s of json.segments) expect(s.speaker_name).toBe(s.speaker === "SPEAKER_00" ? "Alice Dupont" : null);
    expect(json.segments.map((s: Json) => s.speaker)).toEqual(before.segments.map((s: Json) => s.speaker));

    const txt = await (await server.api(`/api/v1/meetings/${up.speakers.id}/transcript?format=txt`, { key: ownerKey })).text();
    expect(txt).toContain("Alice Dupont: segment number0 spoken here");
    expect(txt).toContain("SPEAKER_01: segment number2 spoken here");
    expect(txt).not.toContain("SPEAKER_00");
    const srt = await (await server.api(`/api/v1/meetings/${up.speakers.id}/transcript?format=srt`, { key: ownerKey })).text();
    expect(srt).toContain("Alice Dupont: segment number0 spoken here");
    expect(srt).not.toContain("SPEAKER_00");
    const vtt = await (await server.api(`/api/v1/meetings/${up.speakers.id}/transcript?format=vtt`, { key: ownerKey })).text();
    expect(vtt).toContain("<v Alice Dupont>segment number0 spoken here");

    // Moving the label back to nobody: remove Alice, SPEAKER_00 is unattributed again.
    await patchOk(up.speakers.id, { participants: { remove: [alice.id] } });
    const back = await getJson(server, `/api/v1/meetings/${up.speakers.id}/participants`, ownerKey);
    expect(back.data.filter((p: Json) => p.id === null).map((p: Json) => p.name)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    const txtBack = await (await server.api(`/api/v1/meetings/${up.speakers.id}/transcript?format=txt`, { key: ownerKey })).text();
    expect(txtBack).not.toContain("Alice Dupont");
  });

  test("a meeting without transcript lists only its participants", async () => {
    const listing = await getJson(server, `/api/v1/meetings/${pendingId}/participants`, ownerKey);
    expect(listing.data.map((p: Json) => p.name)).toEqual(["Early"]);
  });
});

// ---------------------------------------------------------------- transcript

describe("GET /v1/meetings/{id}/transcript", () => {
  const MEDIA: Record<string, string> = {
    json: "application/json",
    md: "text/markdown; charset=utf-8",
    txt: "text/plain; charset=utf-8",
    srt: "application/x-subrip; charset=utf-8",
    vtt: "text/vtt; charset=utf-8",
  };

  test("409 transcript_not_ready before it exists, in every format", async () => {
    for (const format of ["", "?format=json", "?format=md", "?format=txt", "?format=srt", "?format=vtt"]) {
      await expectProblem(await server.api(`/api/v1/meetings/${pendingId}/transcript${format}`, { key: ownerKey }), 409, "transcript_not_ready");
    }
  });

  test("the sample transcript, byte for byte in every format, with its media type", async () => {
    for (const format of ["json", "md", "txt", "srt", "vtt"]) {
      const response = await server.api(`/api/v1/meetings/${sampleId}/transcript?format=${format}`, { key: ownerKey });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(MEDIA[format]!);
      const body = Buffer.from(await response.arrayBuffer());
      const expected = readFileSync(join(FIXTURES, `sample.${format}`));
      expect(body.toString("utf8")).toBe(expected.toString("utf8"));
      expect(body.equals(expected)).toBe(true);
    }
    // json is the default.
    const plain = await server.api(`/api/v1/meetings/${sampleId}/transcript`, { key: ownerKey });
    expect(plain.headers.get("content-type")).toBe("application/json");
    expect(await plain.text()).toBe(readFileSync(join(FIXTURES, "sample.json"), "utf8"));
  });

  test("ffmpeg reads the srt and vtt served over HTTP", async () => {
    for (const [meetingId, label] of [
      [sampleId, "sample"],
      [up.full.id, "uploaded"],
    ] as const) {
      for (const format of ["srt", "vtt"]) {
        const text = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=${format}`, { key: ownerKey })).text();
        const file = join(scratch, `${label}.${format}`);
        writeFileSync(file, text);
        const result = ffmpegReads(file);
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(label === "sample" ? "À bientôt !" : "segment number6 spoken here");
      }
    }
  });

  test("an uploaded meeting's transcript in each format", async () => {
    const json = await getJson(server, `/api/v1/meetings/${up.full.id}/transcript`, ownerKey);
    // Its one participant is the diarization's speaker-count hint: one speaker.
    expect(json).toMatchObject({ object: "transcript", meeting_id: up.full.id, duration_seconds: 29, model: "double-whisper", speakers: ["SPEAKER_00"] });
    expect(json.segments).toHaveLength(7);
    expect(json.segments[0]).toEqual({ start: 0, end: 3.5, speaker: "SPEAKER_00", speaker_name: null, text: "segment number0 spoken here" });
    for (const format of ["md", "txt", "srt", "vtt"]) {
      const response = await server.api(`/api/v1/meetings/${up.full.id}/transcript?format=${format}`, { key: ownerKey });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(MEDIA[format]!);
      expect(await response.text()).toContain("segment number3 spoken here");
    }
  });

  test("format=pdf and other unknown formats answer 400 naming format", async () => {
    for (const format of ["pdf", "JSON", "docx", ""]) {
      const problem = await expectProblem(await server.api(`/api/v1/meetings/${up.full.id}/transcript?format=${format}`, { key: ownerKey }), 400, "validation_error");
      expect((problem.errors as Json[]).map((e) => e.field)).toEqual(["format"]);
    }
  });
});

// ---------------------------------------------------------------- summary

describe("GET /v1/meetings/{id}/summary", () => {
  test("409 summary_not_ready before the report and for a transcribe_only meeting", async () => {
    await expectProblem(await server.api(`/api/v1/meetings/${pendingId}/summary`, { key: ownerKey }), 409, "summary_not_ready");
    await expectProblem(await server.api(`/api/v1/meetings/${pendingId}/summary?format=md`, { key: ownerKey }), 409, "summary_not_ready");
    const only = await getJson(server, `/api/v1/meetings/${up.only.id}`, ownerKey);
    expect(only).toMatchObject({ status: "completed", has_summary: false });
    await expectProblem(await server.api(`/api/v1/meetings/${up.only.id}/summary`, { key: ownerKey }), 409, "summary_not_ready");
    await expectProblem(await server.api(`/api/v1/meetings/${up.only.id}/summary?format=md`, { key: ownerKey }), 409, "summary_not_ready");
  });

  test("json: the summary object with its structured report", async () => {
    const response = await server.api(`/api/v1/meetings/${up.full.id}/summary`, { key: ownerKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const s = (await response.json()) as Json;
    expect(s).toMatchObject({ object: "summary", meeting_id: up.full.id, title: "Double report of 7 segments", model: "double-llm" });
    expect(s.markdown).toBe("# Double report of 7 segments\n\nA meeting of 1 speaker(s).\n");
    for (const key of ["title", "summary", "key_takeaways", "action_items", "decisions", "minutes"]) expect(s.structured).toHaveProperty(key);
    expect(Array.isArray(s.structured.key_takeaways)).toBe(true);
    expect(Array.isArray(s.structured.action_items)).toBe(true);
    expect(Array.isArray(s.structured.minutes)).toBe(true);
    expect(Number.isNaN(Date.parse(s.created_at))).toBe(false);
    expect(Number.isNaN(Date.parse(s.updated_at))).toBe(false);
    expect((await getJson(server, `/api/v1/meetings/${up.full.id}`, ownerKey)).summary).toEqual(s);
  });

  test("md: the report's Markdown as text/markdown", async () => {
    const response = await server.api(`/api/v1/meetings/${up.full.id}/summary?format=md`, { key: ownerKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await response.text()).toBe("# Double report of 7 segments\n\nA meeting of 1 speaker(s).\n");
    const problem = await expectProblem(await server.api(`/api/v1/meetings/${up.full.id}/summary?format=pdf`, { key: ownerKey }), 400, "validation_error");
    expect((problem.errors as Json[]).map((e) => e.field)).toEqual(["format"]);
  });
});

// ---------------------------------------------------------------- isolation and scopes

describe("another account's meeting", () => {
  const paths = (id: string) => [
    ["GET", `/api/v1/meetings/${id}`],
    ["GET", `/api/v1/meetings/${id}/participants`],
    ["GET", `/api/v1/meetings/${id}/transcript`],
    ["GET", `/api/v1/meetings/${id}/transcript?format=json`],
    ["GET", `/api/v1/meetings/${id}/transcript?format=md`],
    ["GET", `/api/v1/meetings/${id}/transcript?format=txt`],
    ["GET", `/api/v1/meetings/${id}/transcript?format=srt`],
    ["GET", `/api/v1/meetings/${id}/transcript?format=vtt`],
    ["GET", `/api/v1/meetings/${id}/summary`],
    ["GET", `/api/v1/meetings/${id}/summary?format=md`],
    ["PATCH", `/api/v1/meetings/${id}`],
    ["DELETE", `/api/v1/meetings/${id}`],
  ];

  test("is 404 on every meetings path, and its job too; nothing changes", async () => {
    const before = await getJson(server, `/api/v1/meetings/${up.other.id}`, otherKey);
    for (const [method, path] of paths(up.other.id)) {
      const response = await server.api(path!, { method, key: ownerKey, json: method === "PATCH" ? { title: "Hijacked" } : undefined });
      await expectProblem(response, 404, "not_found");
    }
    await expectProblem(await patch(up.other.id, {}), 404, "not_found");
    await expectProblem(await patch(up.other.id, { participants: { add: [{ name: "Spy" }] } }), 404, "not_found");
    // Upper-case UUID of the same meeting: still not found.
    await expectProblem(await server.api(`/api/v1/meetings/${up.other.id.toUpperCase()}`, { key: ownerKey }), 404, "not_found");
    await expectProblem(await server.api(`/api/v1/jobs/${up.other.jobId}`, { key: ownerKey }), 404, "not_found");
    // Seeded meetings of a third account too.
    await expectProblem(await server.api(`/api/v1/meetings/${F.F1}/summary`, { key: ownerKey }), 404, "not_found");
    await expectProblem(await server.api(`/api/v1/meetings/${F.F1}/transcript?format=srt`, { key: otherKey }), 404, "not_found");
    // Untouched for its owner.
    expect(await getJson(server, `/api/v1/meetings/${up.other.id}`, otherKey)).toEqual(before);
    expect((await getJson(server, `/api/v1/jobs/${up.other.jobId}`, otherKey)).status).toBe("completed");
  });

  test("never appears in another account's list or search", async () => {
    const ownerAll = ids(await listAll("", ownerKey));
    expect(ownerAll).toContain(up.full.id);
    expect(ownerAll).not.toContain(up.other.id);
    expect(ownerAll.some((id) => Object.values(F).includes(id) || bulkIds.includes(id))).toBe(false);
    expect(ids(await listAll("tag=a", ownerKey))).toEqual([up.full.id]);
    expect(ids(await listAll("tag=a", otherKey))).toEqual([up.other.id]);
    expect(ids(await listAll("", otherKey))).toEqual([up.other.id]);
    expect(ids(await listAll("q=budget", otherKey))).toEqual([]);
  });
});

describe("scopes", () => {
  test("read:meetings reads meetings but cannot write, delete, upload or read transcripts", async () => {
    expect((await server.api("/api/v1/meetings", { key: readerKey })).status).toBe(200);
    expect((await getJson(server, `/api/v1/meetings/${up.full.id}`, readerKey)).id).toBe(up.full.id);
    expect((await server.api(`/api/v1/meetings/${up.full.id}/participants`, { key: readerKey })).status).toBe(200);
    expect((await server.api(`/api/v1/meetings/${up.full.id}/summary`, { key: readerKey })).status).toBe(200);

    await expectProblem(await patch(up.full.id, { title: "Nope" }, readerKey), 403, "insufficient_scope");
    await expectProblem(await server.api(`/api/v1/meetings/${up.full.id}`, { method: "DELETE", key: readerKey }), 403, "insufficient_scope");
    const form = new FormData();
    form.set("file", Bun.file(WAV), "meeting-fr-2spk.wav");
    await expectProblem(await server.api("/api/v1/meetings", { method: "POST", key: readerKey, body: form }), 403, "insufficient_scope");
    for (const format of ["json", "txt", "srt"]) {
      await expectProblem(await server.api(`/api/v1/meetings/${up.full.id}/transcript?format=${format}`, { key: readerKey }), 403, "insufficient_scope");
    }
    const still = await getJson(server, `/api/v1/meetings/${up.full.id}`, ownerKey);
    expect(still.title).toBe("Réunion Budget");
  });

  test("read:transcripts reads transcripts but not meetings", async () => {
    expect((await server.api(`/api/v1/meetings/${up.full.id}/transcript?format=vtt`, { key: transcriptReaderKey })).status).toBe(200);
    await expectProblem(await server.api(`/api/v1/meetings/${up.full.id}`, { key: transcriptReaderKey }), 403, "insufficient_scope");
    await expectProblem(await server.api("/api/v1/meetings", { key: transcriptReaderKey }), 403, "insufficient_scope");
  });
});

// ---------------------------------------------------------------- DELETE (last: it removes data)

describe("DELETE /v1/meetings/{id}", () => {
  test("204 without body; everything of the meeting is gone; the job stays completed", async () => {
    const id = up.del.id;
    const folder = join(server.dataDir, "meetings", id);
    expect(existsSync(folder)).toBe(true);
    expect(ids(await listAll("q=doomed", ownerKey))).toEqual([id]);

    const response = await server.api(`/api/v1/meetings/${id}`, { method: "DELETE", key: ownerKey });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("content-type")).toBeNull();

    for (const path of [`/api/v1/meetings/${id}`, `/api/v1/meetings/${id}/transcript`, `/api/v1/meetings/${id}/transcript?format=srt`, `/api/v1/meetings/${id}/summary`, `/api/v1/meetings/${id}/participants`]) {
      await expectProblem(await server.api(path, { key: ownerKey }), 404, "not_found");
    }
    await expectProblem(await patch(id, { title: "Back" }), 404, "not_found");
    expect(existsSync(folder)).toBe(false);
    const job = await getJson(server, `/api/v1/jobs/${up.del.jobId}`, ownerKey);
    expect(job).toMatchObject({ id: up.del.jobId, status: "completed" });

    await expectProblem(await server.api(`/api/v1/meetings/${id}`, { method: "DELETE", key: ownerKey }), 404, "not_found");
    expect(ids(await listAll("", ownerKey))).not.toContain(id);
    expect(ids(await listAll("q=doomed", ownerKey))).toEqual([]);
    expect(ids(await listAll("q=spoken", ownerKey))).not.toContain(id);
    // Its rows are gone from the database too.
    expect(await onDatabase(server, (q) => q.select().from(transcripts).where(eq(transcripts.meetingId, id)))).toEqual([]);
    expect(await onDatabase(server, (q) => q.select().from(reports).where(eq(reports.meetingId, id)))).toEqual([]);
    expect(await queryRows(server, sql`SELECT meeting_id FROM meetings_fts WHERE meeting_id = ${id}`)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { run, type DbConn } from "../../src/db/conn.ts";
import { idempotencyKeys } from "../../src/idempotency/table.ts";
import { createUserWithKey, expectProblem, expectRateHeaders, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";
import { undecodableRecording, wavSizedBytes } from "../helpers/recordings.ts";

/**
 * POST /v1/meetings over real HTTP (SPEC 4 "Meetings" and "Idempotency", 7, 8): uploads and
 * audio_url, every validation rule, SSRF refusals, idempotency, the upload limit, disconnects,
 * undecodable files, other containers, and the parallel processing limit.
 */

const FIXTURES = SHARED_FIXTURES;
const FR_WAV = join(FIXTURES, "meeting-fr-2spk.wav"); // 29 s
const EN_WAV = join(FIXTURES, "meeting-en-3spk.wav"); // 66 s
const NO_LIMITS = ["--rate-limits", "pro=100000,free=100000,standard=100000,anonymous=100000"];
const DOUBLES = ["--engines", "test/doubles/engines.ts"];
const LIMIT = 2_000_000_000; // SPEC 8: 2 GB

// Above every `eventually` wait: a timed-out test makes bun kill the servers every later test needs.
setDefaultTimeout(20_000);

let main: TestServer; // no --egress-allow: most tests
let mainConn: DbConn; // main's database, where the tests look at what the API has no endpoint for
let egress: TestServer; // --egress-allow 127.0.0.1: audio_url downloads from the loopback file server
let clean: TestServer; // nothing is ever created here: 413 and disconnects leave empty folders
let slots: TestServer; // free=1 slot, slow transcription
let files: ReturnType<typeof Bun.serve>; // loopback file server for audio_url
let scratch: string;

let owner: string; // main: the successful uploads
let other: string; // main: another account
let invalid: string; // main: only refused requests, so it never owns anything

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "verbatim-create-"));
  files = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/meeting.wav") return new Response(Bun.file(FR_WAV));
      if (path === "/slow/meeting.wav") {
        // Headers at once, then the body after a pause, so the job is seen in its downloading stage.
        const bytes = new Uint8Array(await Bun.file(FR_WAV).arrayBuffer());
        let sent = false;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (!sent) {
              sent = true;
              controller.enqueue(bytes.subarray(0, 1000));
              return;
            }
            await Bun.sleep(1500);
            controller.enqueue(bytes.subarray(1000));
            controller.close();
          },
        });
        return new Response(body, { headers: { "Content-Length": String(bytes.byteLength), "Content-Type": "audio/wav" } });
      }
      return new Response("no such file", { status: 404 });
    },
  });
  // Four servers (and their five workers) start side by side: more time to listen than one alone.
  const startTimeoutMs = 45_000;
  const started = await Promise.allSettled([
    // Slots are not under test here: enough that queued jobs never refuse the next upload.
    startServer({ args: [...NO_LIMITS, ...DOUBLES, "--workers", "2", "--parallel-slots", "pro=1000"], startTimeoutMs }),
    startServer({ args: [...NO_LIMITS, ...DOUBLES, "--egress-allow", "127.0.0.1"], startTimeoutMs }),
    startServer({ args: [...NO_LIMITS, ...DOUBLES], startTimeoutMs }),
    // --egress-allow: its JSON request must be valid (a reachable audio_url) to meet the slot check, which comes after validation.
    startServer({ args: [...NO_LIMITS, ...DOUBLES, "--parallel-slots", "free=1", "--egress-allow", "127.0.0.1"], env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=60000" }, startTimeoutMs }),
  ]);
  // One that did not start fails the file: the others are stopped now, or they would outlive it.
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.stop() : undefined)));
    throw failed.reason;
  }
  [main, egress, clean, slots] = started.map((s) => (s as PromiseFulfilledResult<TestServer>).value) as [TestServer, TestServer, TestServer, TestServer];
  mainConn = main.conn();
  [owner, other, invalid] = await Promise.all([
    createUserWithKey(main, "owner@example.com"),
    createUserWithKey(main, "other@example.com"),
    createUserWithKey(main, "invalid@example.com"),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([main?.stop(), egress?.stop(), clean?.stop(), slots?.stop()]);
  files?.stop(true);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 30_000);

// ---------------------------------------------------------------------------------------------
// Helpers

type Json = any;

/** A multipart POST /v1/meetings with fetch's own FormData encoding. */
function upload(
  server: TestServer,
  key: string,
  fields: Record<string, string> = {},
  file: { data: Blob; name: string } | null = { data: Bun.file(FR_WAV), name: "meeting-fr-2spk.wav" },
  headers: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append("file", file.data, file.name);
  return server.api("/api/v1/meetings", { method: "POST", key, body: form, headers });
}

function postJson(server: TestServer, key: string, json: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return server.api("/api/v1/meetings", { method: "POST", key, json, headers });
}

/** The text of a multipart body with a chosen boundary, around an optional file part. */
function multipartParts(boundary: string, fields: [string, string][], fileName?: string): { head: string; tail: string } {
  let head = "";
  for (const [name, value] of fields) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  if (fileName !== undefined) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: audio/wav\r\n\r\n`;
  }
  return { head, tail: `${fileName !== undefined ? "\r\n" : ""}--${boundary}--\r\n` };
}

/**
 * In memory: Bun 1.4's Blob constructor silently drops a Bun.file part mixed with other parts
 * (new Blob(["a", Bun.file(p), "b"]).size === 2), so file bodies are read here first.
 */
function multipartBlob(boundary: string, fields: [string, string][], file: { name: string; data: Uint8Array }): Blob {
  const { head, tail } = multipartParts(boundary, fields, file.name);
  return new Blob([head, file.data as Uint8Array<ArrayBuffer>, tail]);
}

/** The same body streamed from disk (for files too big to hold), with its Content-Length. */
function multipartStream(boundary: string, fields: [string, string][], file: { name: string; path: string }) {
  const { head, tail } = multipartParts(boundary, fields, file.name);
  const size = Buffer.byteLength(head) + Bun.file(file.path).size + Buffer.byteLength(tail);
  async function* chunks() {
    yield new TextEncoder().encode(head);
    // 8 MiB reads: Bun.file().stream()'s small chunks make a 2 GB body ~50% slower over loopback.
    const handle = await open(file.path);
    try {
      for (;;) {
        const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
        const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength);
        if (bytesRead === 0) break;
        yield buffer.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
    yield new TextEncoder().encode(tail);
  }
  return { body: chunks(), contentLength: size };
}

async function accepted(response: Response): Promise<Json> {
  const text = await response.text();
  if (response.status !== 202) throw new Error(`expected 202, got ${response.status}: ${text}`);
  return JSON.parse(text);
}

/** Polls GET /v1/jobs/{id} until the job ends; returns it and every stage seen on the way. */
async function waitJob(server: TestServer, key: string, jobId: string, timeoutMs = 60_000): Promise<{ job: Json; stages: string[] }> {
  const deadline = Date.now() + timeoutMs;
  const stages: string[] = [];
  for (;;) {
    const response = await server.api(`/api/v1/jobs/${jobId}`, { key });
    expect(response.status).toBe(200);
    const job = (await response.json()) as Json;
    if (stages.at(-1) !== job.stage) stages.push(job.stage);
    if (["completed", "failed", "canceled"].includes(job.status)) return { job, stages };
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}/${job.stage} after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

async function getMeeting(server: TestServer, key: string, id: string): Promise<Json> {
  const response = await server.api(`/api/v1/meetings/${id}`, { key });
  expect(response.status).toBe(200);
  return response.json();
}

async function countMeetings(server: TestServer, key: string): Promise<number> {
  const response = await server.api("/api/v1/meetings?limit=100", { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).data.length;
}

async function countJobs(server: TestServer, key: string): Promise<number> {
  const response = await server.api("/api/v1/jobs?limit=100", { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).data.length;
}

/** Entries of a folder of the data dir; a missing folder is empty. */
function entries(server: TestServer, folder: "tmp" | "meetings"): string[] {
  const dir = join(server.dataDir, folder);
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Retries `check` until it passes or `ms` pass (the last failure is thrown). */
async function eventually(check: () => void | Promise<void>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(100);
    }
  }
}

/** A 400 validation_error whose errors name exactly these fields. */
async function expectInvalid(response: Response, ...fields: string[]): Promise<Json> {
  const body = (await expectProblem(response, 400, "validation_error")) as Json;
  expect(body.errors.map((e: Json) => e.field)).toEqual(fields);
  for (const entry of body.errors) {
    expect(typeof entry.code).toBe("string");
    expect(typeof entry.message).toBe("string");
  }
  return body;
}

/** A JSON body that passes validation up to the field under test (its URL is never fetched). */
const jsonBase = { audio_url: "https://recordings.example.com/a.wav" };

function withinSeconds(iso: string, seconds: number): boolean {
  return Math.abs(Date.parse(iso) - Date.now()) <= seconds * 1000;
}

// ---------------------------------------------------------------------------------------------

describe("multipart upload", () => {
  test("202 with the queued meeting and its job; processing completes and the AI title replaces the file name", async () => {
    const participants = [
      { name: "Alice Martin", email: "alice@example.com", speaker_labels: ["SPEAKER_00"] },
      { name: "Bob", speaker_labels: [] },
    ];
    const response = await upload(main, owner, {
      tags: JSON.stringify(["board", "q3"]),
      participants: JSON.stringify(participants),
      metadata: JSON.stringify({ crm_id: "A-17", nested: { n: 1 } }),
      language: "fr",
    });
    expectRateHeaders(response);
    const meeting = await accepted(response);
    expect(meeting).toMatchObject({
      object: "meeting",
      status: "queued",
      title: "meeting-fr-2spk",
      source: "upload",
      transcribe_only: false,
      recording_type: "meeting",
      language: "fr",
      tags: ["board", "q3"],
      metadata: { crm_id: "A-17", nested: { n: 1 } },
      has_transcript: false,
      has_summary: false,
      summary: null,
      duration_seconds: null,
      client: null,
    });
    expect(meeting.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(meeting.participants).toEqual([
      { id: expect.stringMatching(/^par_\d+$/), object: "participant", name: "Alice Martin", email: "alice@example.com", speaker_labels: ["SPEAKER_00"] },
      { id: expect.stringMatching(/^par_\d+$/), object: "participant", name: "Bob", email: null, speaker_labels: [] },
    ]);
    expect(withinSeconds(meeting.recorded_at, 60)).toBe(true);
    expect(meeting.recorded_at).toBe(meeting.created_at);
    expect(meeting.job).toMatchObject({
      object: "job",
      kind: "meeting_processing",
      status: "queued",
      stage: "queued",
      meeting_id: meeting.id,
      metadata: { crm_id: "A-17", nested: { n: 1 } },
      error: null,
      finished_at: null,
    });
    expect(meeting.job.id).toMatch(/^job_\w+$/);

    const { job } = await waitJob(main, owner, meeting.job.id);
    expect(job).toMatchObject({ status: "completed", stage: "done", progress: 1, error: null });
    const done = await getMeeting(main, owner, meeting.id);
    expect(done).toMatchObject({ status: "completed", duration_seconds: 29, has_transcript: true, has_summary: true });
    expect(done.summary.title).toEqual(expect.any(String));
    expect(done.title).not.toBe("meeting-fr-2spk");
    expect(done.title).toBe(done.summary.title);
  }, 70_000);

  test("a title given at creation is kept when the AI report arrives", async () => {
    const meeting = await accepted(await upload(main, owner, { title: "  Board review  " }));
    expect(meeting.title).toBe("Board review");
    const { job } = await waitJob(main, owner, meeting.job.id);
    expect(job.status).toBe("completed");
    const done = await getMeeting(main, owner, meeting.id);
    expect(done.has_summary).toBe(true);
    expect(done.summary.title).not.toBe("Board review");
    expect(done.title).toBe("Board review");
  }, 70_000);

  test("recorded_at, recording_type, transcribe_only and language auto are taken as given", async () => {
    const meeting = await accepted(
      await upload(main, owner, { recorded_at: "2026-03-04T09:30:00+02:00", recording_type: "solo", transcribe_only: "true", language: "auto" }),
    );
    expect(meeting).toMatchObject({ recorded_at: "2026-03-04T07:30:00.000Z", recording_type: "solo", transcribe_only: true, language: null });
    expect(meeting.job.transcribe_only).toBe(true);
  });

  test("every limit at its boundary is accepted: 300-char title, 20 tags, 50 participants, 5 templates, 4096-byte metadata", async () => {
    const metadata = { k: "x".repeat(4096 - JSON.stringify({ k: "" }).length) };
    expect(new TextEncoder().encode(JSON.stringify(metadata)).byteLength).toBe(4096);
    const tags = Array.from({ length: 20 }, (_, i) => `t${i}`);
    const participants = Array.from({ length: 50 }, (_, i) => ({ name: `Person ${i}` }));
    const templates = ["tpl_minutes", "tpl_action_plan", "tpl_follow_up_email", "tpl_executive_brief", "tpl_client_memo"];
    const meeting = await accepted(
      await upload(main, owner, {
        title: "T".repeat(300),
        tags: tags.join(","),
        participants: JSON.stringify(participants),
        document_templates: templates.join(","),
        metadata: JSON.stringify(metadata),
      }),
    );
    expect(meeting.title).toBe("T".repeat(300));
    expect(meeting.tags).toHaveLength(20);
    expect(meeting.participants).toHaveLength(50);
    expect(meeting.metadata).toEqual(metadata);
    expect(meeting.job.document_templates).toEqual(templates);
    expect(meeting.job.metadata).toEqual(metadata);
  });
});

describe("validation (400 validation_error naming the field)", () => {
  const cases: { name: string; send: () => Promise<Response>; fields: string[] }[] = [
    { name: "title of 301 characters", send: () => postJson(main, invalid, { ...jsonBase, title: "T".repeat(301) }), fields: ["title"] },
    { name: "recorded_at that is not a date-time", send: () => postJson(main, invalid, { ...jsonBase, recorded_at: "yesterday" }), fields: ["recorded_at"] },
    { name: "recorded_at as a date without time", send: () => upload(main, invalid, { recorded_at: "2026-03-04" }), fields: ["recorded_at"] },
    { name: "language xx (not ISO 639-1)", send: () => postJson(main, invalid, { ...jsonBase, language: "xx" }), fields: ["language"] },
    { name: "language english (a name, not a code)", send: () => upload(main, invalid, { language: "english" }), fields: ["language"] },
    { name: "recording_type panel", send: () => postJson(main, invalid, { ...jsonBase, recording_type: "panel" }), fields: ["recording_type"] },
    {
      name: "51 participants",
      send: () => postJson(main, invalid, { ...jsonBase, participants: Array.from({ length: 51 }, (_, i) => ({ name: `P${i}` })) }),
      fields: ["participants"],
    },
    {
      name: "a participant without a name",
      send: () => upload(main, invalid, { participants: JSON.stringify([{ email: "a@example.com" }]) }),
      fields: ["participants[0].name"],
    },
    {
      name: "a participant with a bad email",
      send: () => postJson(main, invalid, { ...jsonBase, participants: [{ name: "A" }, { name: "B", email: "not-an-email" }] }),
      fields: ["participants[1].email"],
    },
    {
      name: "21 tags (comma list in multipart)",
      send: () => upload(main, invalid, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`).join(",") }),
      fields: ["tags"],
    },
    {
      name: "21 tags (JSON)",
      send: () => postJson(main, invalid, { ...jsonBase, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
      fields: ["tags"],
    },
    { name: "client_id 12 (not cli_<n>)", send: () => postJson(main, invalid, { ...jsonBase, client_id: "12" }), fields: ["client_id"] },
    {
      name: "client_id together with client",
      send: () => postJson(main, invalid, { ...jsonBase, client_id: "cli_1", client: { name: "Acme" } }),
      fields: ["client"],
    },
    {
      name: "6 document_templates",
      send: () => upload(main, invalid, { document_templates: JSON.stringify(Array.from({ length: 6 }, (_, i) => `tpl_${i}`)) }),
      fields: ["document_templates"],
    },
    {
      name: "a document template id that is not tpl_",
      send: () => postJson(main, invalid, { ...jsonBase, document_templates: ["tpl_ok", "minutes"] }),
      fields: ["document_templates[1]"],
    },
    {
      name: "metadata of 4097 bytes",
      send: () => postJson(main, invalid, { ...jsonBase, metadata: { k: "x".repeat(4097 - JSON.stringify({ k: "" }).length) } }),
      fields: ["metadata"],
    },
    {
      name: "metadata over 4 KB in multipart, counted in bytes (é is 2 bytes)",
      send: () => upload(main, invalid, { metadata: JSON.stringify({ k: "é".repeat(2100) }) }),
      fields: ["metadata"],
    },
    { name: "metadata that is not an object", send: () => postJson(main, invalid, { ...jsonBase, metadata: [1, 2] }), fields: ["metadata"] },
    { name: "transcribe_only maybe (multipart)", send: () => upload(main, invalid, { transcribe_only: "maybe" }), fields: ["transcribe_only"] },
    { name: "transcribe_only maybe (JSON)", send: () => postJson(main, invalid, { ...jsonBase, transcribe_only: "maybe" }), fields: ["transcribe_only"] },
    { name: "an unknown field (JSON)", send: () => postJson(main, invalid, { ...jsonBase, colour: "blue" }), fields: ["colour"] },
    { name: "an unknown field (multipart)", send: () => upload(main, invalid, { colour: "blue" }), fields: ["colour"] },
    {
      name: "both file and audio_url in multipart",
      send: () => upload(main, invalid, { audio_url: "https://recordings.example.com/a.wav" }),
      fields: ["audio_url"],
    },
    { name: "neither: JSON without audio_url", send: () => postJson(main, invalid, { title: "No recording" }), fields: ["audio_url"] },
    { name: "neither: an empty JSON body", send: () => postJson(main, invalid, {}), fields: ["audio_url"] },
    { name: "multipart without file", send: () => upload(main, invalid, { title: "No file" }, null), fields: ["file"] },
    { name: "an empty file", send: () => upload(main, invalid, {}, { data: new Blob([]), name: "empty.wav" }), fields: ["file"] },
    { name: "audio_url that is not a URL", send: () => postJson(main, invalid, { audio_url: "not a url" }), fields: ["audio_url"] },
    {
      name: "a speaker label given to two participants (multipart: checked after the upload was received)",
      send: () =>
        upload(main, invalid, {
          participants: JSON.stringify([
            { name: "A", speaker_labels: ["SPEAKER_00"] },
            { name: "B", speaker_labels: ["SPEAKER_01", "SPEAKER_00"] },
          ]),
        }),
      fields: ["participants[1].speaker_labels"],
    },
    {
      name: "a speaker label that is not SPEAKER_nn",
      send: () => postJson(main, invalid, { ...jsonBase, participants: [{ name: "A", speaker_labels: ["Alice"] }] }),
      fields: ["participants[0].speaker_labels[0]"],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      await expectInvalid(await c.send(), ...c.fields);
    });
  }

  test("client_id of another account, or of no client, is 400 unknown_client on client_id, leaving no folder behind", async () => {
    const theirs = await accepted(await upload(main, other, { client: "Other Firm" }));
    expect(theirs.client.id).toMatch(/^cli_\d+$/);
    const folders = entries(main, "meetings").sort();
    for (const clientId of [theirs.client.id, "cli_999999"]) {
      const problem = await expectProblem(await upload(main, invalid, { client_id: clientId }), 400, "validation_error");
      expect(problem.errors).toEqual([expect.objectContaining({ field: "client_id", code: "unknown_client" })]);
    }
    expect(entries(main, "meetings").sort()).toEqual(folders);
  });

  test("valid languages fr and auto are accepted", async () => {
    expect((await accepted(await upload(main, owner, { language: "fr" }))).language).toBe("fr");
    expect((await accepted(await upload(main, owner, { language: " FR " }))).language).toBe("fr");
    const auto = await accepted(await upload(main, owner, { language: "auto" }));
    expect(auto.language).toBeNull();
  });

  test("no refused request created anything, nor left a file behind", async () => {
    expect(await countMeetings(main, invalid)).toBe(0);
    expect(await countJobs(main, invalid)).toBe(0);
    await eventually(() => expect(entries(main, "tmp")).toEqual([]));
  });
});

describe("multipart field forms", () => {
  test("document_templates and persona must name templates and a persona of the catalogue; nothing is kept", async () => {
    const unknownTemplate = await upload(main, owner, { document_templates: "tpl_minutes,tpl_no_such_template" });
    const body = (await expectProblem(unknownTemplate, 400, "validation_error")) as Json;
    expect(body.errors).toEqual([expect.objectContaining({ field: "document_templates[1]", code: "unknown_template" })]);
    const unknownPersona = await postJson(main, owner, { audio_url: "https://files.example.com/a.mp3", persona: "astronaut" });
    expect(((await expectProblem(unknownPersona, 400, "validation_error")) as Json).errors).toEqual([
      expect.objectContaining({ field: "persona", code: "unknown_persona" }),
    ]);
    await eventually(() => expect(entries(main, "tmp")).toEqual([]));
    const known = await accepted(await upload(main, owner, { persona: "lawyer", document_templates: "tpl_case_timeline" }));
    expect(known.job.document_templates).toEqual(["tpl_case_timeline"]);
  });

  test("participants, tags, document_templates and metadata as JSON strings", async () => {
    const meeting = await accepted(
      await upload(main, owner, {
        participants: JSON.stringify([{ name: "Chloé", email: "chloe@example.com", speaker_labels: ["SPEAKER_01"] }]),
        tags: '["alpha", "beta"]',
        document_templates: '["tpl_minutes", "tpl_engagement_letter"]',
        metadata: '{"matter": 42, "ok": true}',
      }),
    );
    expect(meeting.participants).toEqual([{ id: expect.stringMatching(/^par_\d+$/), object: "participant", name: "Chloé", email: "chloe@example.com", speaker_labels: ["SPEAKER_01"] }]);
    expect(meeting.tags).toEqual(["alpha", "beta"]);
    expect(meeting.job.document_templates).toEqual(["tpl_minutes", "tpl_engagement_letter"]);
    expect(meeting.metadata).toEqual({ matter: 42, ok: true });
    expect(meeting.job.metadata).toEqual({ matter: 42, ok: true });
  });

  test("a speaker label repeated within one participant is kept once; repeated tags are kept once", async () => {
    const meeting = await accepted(
      await upload(main, owner, {
        participants: JSON.stringify([{ name: "Alice", speaker_labels: ["SPEAKER_00", "SPEAKER_00", "SPEAKER_02"] }]),
        tags: "dup, dup,other",
      }),
    );
    expect(meeting.participants[0].speaker_labels).toEqual(["SPEAKER_00", "SPEAKER_02"]);
    expect(meeting.tags).toEqual(["dup", "other"]);
  });

  test("tags and document_templates as comma-separated lists", async () => {
    const meeting = await accepted(await upload(main, owner, { tags: "alpha, beta ,gamma", document_templates: "tpl_minutes,tpl_engagement_letter" }));
    expect([...meeting.tags].sort()).toEqual(["alpha", "beta", "gamma"]);
    expect(meeting.job.document_templates).toEqual(["tpl_minutes", "tpl_engagement_letter"]);
  });

  test("client as a JSON object is created with its contacts", async () => {
    const meeting = await accepted(
      await upload(main, owner, { client: JSON.stringify({ name: "Dupont & Fils", email: "contact@dupont.example", phone: "+33 1 23 45 67 89" }) }),
    );
    expect(meeting.client).toEqual({
      id: expect.stringMatching(/^cli_\d+$/),
      object: "client",
      name: "Dupont & Fils",
      email: "contact@dupont.example",
      phone: "+33 1 23 45 67 89",
      is_archived: false,
      legal_hold: false,
    });
  });

  test("client as just a name: find-or-create, the same name (any case) gives the same client, listed once", async () => {
    const first = await accepted(await upload(main, owner, { client: "Acme Legal" }));
    const second = await accepted(await upload(main, owner, { client: "acme LEGAL" }));
    expect(first.client).toMatchObject({ object: "client", name: "Acme Legal", email: null, phone: null });
    expect(second.client.id).toBe(first.client.id);
    // JSON with the client's id attaches the same folder.
    const byId = await accepted(await upload(main, owner, { client_id: first.client.id }));
    expect(byId.client.id).toBe(first.client.id);
    const list = (await (await main.api("/api/v1/clients", { key: owner })).json()) as Json;
    expect(list.data.filter((c: Json) => c.name.toLowerCase() === "acme legal")).toEqual([first.client]);
    // Another account's folders are separate, even with the same name.
    const theirs = await accepted(await upload(main, other, { client: "Acme Legal" }));
    expect(theirs.client.id).not.toBe(first.client.id);
  });
});

describe("content types and audio_url", () => {
  test("JSON with audio_url goes through downloading to completed", async () => {
    const key = await createUserWithKey(egress, "url@example.com");
    const meeting = await accepted(await postJson(egress, key, { audio_url: `http://127.0.0.1:${files.port}/slow/meeting.wav`, tags: ["url"] }));
    expect(meeting).toMatchObject({ status: "queued", source: "url", title: "meeting", tags: ["url"] });
    expect(meeting.job).toMatchObject({ kind: "meeting_processing", status: "queued", stage: "queued" });
    const { job, stages } = await waitJob(egress, key, meeting.job.id);
    expect(job.status).toBe("completed");
    expect(stages).toContain("downloading");
    expect(stages.indexOf("downloading")).toBeLessThan(stages.indexOf("done"));
    const done = await getMeeting(egress, key, meeting.id);
    expect(done).toMatchObject({ status: "completed", duration_seconds: 29, has_transcript: true, has_summary: true });
  }, 70_000);

  test("an audio_url answering 404 fails the job with download_http_error", async () => {
    const key = await createUserWithKey(egress, "url404@example.com");
    const meeting = await accepted(await postJson(egress, key, { audio_url: `http://127.0.0.1:${files.port}/missing.wav` }));
    const { job } = await waitJob(egress, key, meeting.job.id);
    expect(job.status).toBe("failed");
    expect(job.error.code).toBe("download_http_error");
    expect(typeof job.error.message).toBe("string");
    expect((await getMeeting(egress, key, meeting.id)).status).toBe("failed");
  }, 70_000);

  test("the default title is the URL's last path segment, decoded; undecodable escapes are kept as sent", async () => {
    const key = await createUserWithKey(egress, "url-titles@example.com");
    const base = `http://127.0.0.1:${files.port}`;
    const decoded = await accepted(await postJson(egress, key, { audio_url: `${base}/recordings/R%C3%A9union%20du%20lundi.wav?sig=abc` }));
    expect(decoded.title).toBe("Réunion du lundi");
    const kept = await accepted(await postJson(egress, key, { audio_url: `${base}/rec/%zz-100%25.wav` }));
    expect(kept.title).toBe("%zz-100%25");
    const latin1 = await accepted(await postJson(egress, key, { audio_url: `${base}/rec/caf%E9.mp3` }));
    expect(latin1.title).toBe("caf%E9");
    const none = await accepted(await postJson(egress, key, { audio_url: `${base}/` }));
    expect(none.title).toMatch(/^Meeting of \d{4}-\d{2}-\d{2}$/);
  });

  test("text/plain is 415 unsupported_media_type", async () => {
    const response = await main.api("/api/v1/meetings", {
      method: "POST",
      key: invalid,
      headers: { "Content-Type": "text/plain" },
      body: "https://recordings.example.com/a.wav",
    });
    await expectProblem(response, 415, "unsupported_media_type");
    expect(await countMeetings(main, invalid)).toBe(0);
  });

  test("audio_url refusals on a server without --egress-allow: 400 on audio_url, nothing created", async () => {
    const refusals = [
      "http://example.com/a.wav",
      "https://127.0.0.1/a.wav",
      "https://localhost/a.wav",
      "https://10.0.0.1/a.wav",
      "https://192.168.1.1/a.wav",
      "https://172.16.5.4/a.wav",
      "https://169.254.169.254/latest",
      "https://[::1]/a",
      "https://[fe80::1]/a",
      "https://[::ffff:127.0.0.1]/a",
      "https://0x7f000001/a",
      "https://2130706433/a",
      "https://0.0.0.0/a",
      "https://user:pass@recordings.example.com/a.wav",
      "ftp://recordings.example.com/a.wav",
    ];
    for (const audioUrl of refusals) {
      const response = await postJson(main, invalid, { audio_url: audioUrl });
      const body = await expectProblem(response, 400, "validation_error").catch((error) => {
        throw new Error(`${audioUrl}: ${error}`);
      });
      expect({ audioUrl, fields: (body.errors as Json[]).map((e) => e.field) }).toEqual({ audioUrl, fields: ["audio_url"] });
    }
    expect(await countMeetings(main, invalid)).toBe(0);
    expect(await countJobs(main, invalid)).toBe(0);
  }, 30_000);
});

describe("Idempotency-Key", () => {
  test("same key, same JSON body: the original answer with Idempotent-Replayed, one meeting and one job", async () => {
    const key = await createUserWithKey(egress, "idem-json@example.com");
    const idem = crypto.randomUUID();
    const url = `http://127.0.0.1:${files.port}/meeting.wav`;
    const first = await postJson(egress, key, { audio_url: url, title: "Replay", tags: ["a"] }, { "Idempotency-Key": idem });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const original = await accepted(first);
    // The same request, its keys in another order.
    const second = await postJson(egress, key, { tags: ["a"], title: "Replay", audio_url: url }, { "Idempotency-Key": idem });
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.json()).toEqual(original);
    expect(await countMeetings(egress, key)).toBe(1);
    expect(await countJobs(egress, key)).toBe(1);

    const reused = await postJson(egress, key, { audio_url: url, title: "Another title", tags: ["a"] }, { "Idempotency-Key": idem });
    await expectProblem(reused, 422, "idempotency_key_reused");
    expect(await countMeetings(egress, key)).toBe(1);
  });

  test("same key, same multipart upload sent with another boundary: replayed, one meeting, no temp file left", async () => {
    const key = await createUserWithKey(main, "idem-upload@example.com");
    const idem = crypto.randomUUID();
    const fields: [string, string][] = [
      ["title", "Upload replay"],
      ["tags", "x,y"],
    ];
    const send = (boundary: string, title = "Upload replay") =>
      main.api("/api/v1/meetings", {
        method: "POST",
        key,
        headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Idempotency-Key": idem },
        body: multipartBlob(
          boundary,
          fields.map(([n, v]) => [n, n === "title" ? title : v]),
          { name: "meeting-fr-2spk.wav", data: readFileSync(FR_WAV) },
        ),
      });
    const original = await accepted(await send("----first-boundary-1111"));
    const replay = await send("XyZ-second-boundary-2222");
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(original);
    expect(await countMeetings(main, key)).toBe(1);
    expect(await countJobs(main, key)).toBe(1);
    await eventually(() => expect(entries(main, "tmp")).toEqual([]));

    await expectProblem(await send("third-boundary", "Another title"), 422, "idempotency_key_reused");
    // The same fields with another file are a different request too.
    const otherFile = await upload(main, key, Object.fromEntries(fields), { data: new Blob([readFileSync(FR_WAV).subarray(0, 200_000)]), name: "meeting-fr-2spk.wav" }, { "Idempotency-Key": idem });
    await expectProblem(otherFile, 422, "idempotency_key_reused");
    expect(await countMeetings(main, key)).toBe(1);
    await eventually(() => expect(entries(main, "tmp")).toEqual([]));
  });

  test("same key, same name and size, a file that differs in one byte: 422 idempotency_key_reused", async () => {
    const key = await createUserWithKey(main, "idem-byte@example.com");
    const idem = crypto.randomUUID();
    const wav = readFileSync(FR_WAV);
    await accepted(await upload(main, key, { title: "One byte" }, { data: new Blob([wav]), name: "call.wav" }, { "Idempotency-Key": idem }));
    const altered = Buffer.from(wav);
    altered[altered.length - 1] = altered[altered.length - 1]! ^ 0x01;
    expect(altered.byteLength).toBe(wav.byteLength);
    const second = await upload(main, key, { title: "One byte" }, { data: new Blob([altered]), name: "call.wav" }, { "Idempotency-Key": idem });
    await expectProblem(second, 422, "idempotency_key_reused");
    expect(await countMeetings(main, key)).toBe(1);
  });

  test("a key older than 24 hours is forgotten: the same request runs anew", async () => {
    const key = await createUserWithKey(main, "idem-old@example.com");
    const idem = crypto.randomUUID();
    const send = () => upload(main, key, { title: "Yesterday" }, undefined, { "Idempotency-Key": idem });
    const first = await accepted(await send());
    const aged = await run(mainConn, (q) =>
      q
        .update(idempotencyKeys)
        .set({ createdAt: sql`${idempotencyKeys.createdAt} - ${25 * 3600 * 1000}` })
        .where(eq(idempotencyKeys.key, idem))
        .returning({ key: idempotencyKeys.key }),
    );
    expect(aged).toHaveLength(1);
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    const second = (await again.json()) as Json;
    expect(second.id).not.toBe(first.id);
    expect(await countMeetings(main, key)).toBe(2);
  });

  test("the key is recorded in the meeting's own transaction: the stored answer names the meeting it created", async () => {
    const key = await createUserWithKey(main, "idem-tx@example.com");
    const idem = crypto.randomUUID();
    const created = await accepted(await upload(main, key, { title: "Atomic" }, undefined, { "Idempotency-Key": idem }));
    const found = await run(mainConn, (q) =>
      q
        .select({ status: idempotencyKeys.status, resourceId: idempotencyKeys.resourceId, responseBody: idempotencyKeys.responseBody })
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.key, idem)),
    );
    expect(found).toHaveLength(1);
    const row = found[0]!;
    expect(row.status).toBe("done");
    expect(row.resourceId).toBe(created.id);
    expect(JSON.parse(row.responseBody!)).toEqual(created);
  });

  test("same key while the first request is still uploading: 409 idempotency_key_in_use", async () => {
    const key = await createUserWithKey(main, "idem-busy@example.com");
    const idem = crypto.randomUUID();
    const boundary = "slow-upload-boundary";
    const { head, tail } = multipartParts(boundary, [["title", "Slow"]], "slow.wav");
    const wav = readFileSync(FR_WAV);
    const half = Math.floor(wav.byteLength / 2);
    const encoder = new TextEncoder();
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        step++;
        if (step === 1) controller.enqueue(encoder.encode(head));
        else if (step === 2) controller.enqueue(new Uint8Array(wav.subarray(0, half)));
        else if (step === 3) {
          await Bun.sleep(1500);
          controller.enqueue(new Uint8Array(wav.subarray(half)));
        } else {
          controller.enqueue(encoder.encode(tail));
          controller.close();
        }
      },
    });
    const slow = main.api("/api/v1/meetings", {
      method: "POST",
      key,
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Idempotency-Key": idem },
      body,
    });
    // The first request holds the key once its file is streaming to the temp folder.
    await eventually(() => expect(entries(main, "tmp").length).toBe(1), 5000);
    const meanwhile = await upload(main, key, { title: "Slow" }, { data: Bun.file(FR_WAV), name: "slow.wav" }, { "Idempotency-Key": idem });
    await expectProblem(meanwhile, 409, "idempotency_key_in_use");
    const first = await accepted(await slow);
    expect(first.title).toBe("Slow");
    expect(await countMeetings(main, key)).toBe(1);
    // Once the first has finished, the same request is a replay.
    const after = await upload(main, key, { title: "Slow" }, { data: Bun.file(FR_WAV), name: "slow.wav" }, { "Idempotency-Key": idem });
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(await after.json()).toEqual(first);
    expect(await countMeetings(main, key)).toBe(1);
  }, 20_000);

  test("a key over 255 characters is 400; 255 is accepted", async () => {
    const key = await createUserWithKey(main, "idem-long@example.com");
    const tooLong = await upload(main, key, {}, undefined, { "Idempotency-Key": "k".repeat(256) });
    const body = await expectProblem(tooLong, 400, "validation_error");
    expect((body.errors as Json[]).map((e) => e.field)).toEqual(["Idempotency-Key"]);
    expect(await countMeetings(main, key)).toBe(0);
    const ok = await upload(main, key, {}, undefined, { "Idempotency-Key": "k".repeat(255) });
    expect(ok.status).toBe(202);
  });

  test("a refused request does not burn its key: the corrected retry succeeds, then replays", async () => {
    const key = await createUserWithKey(main, "idem-retry@example.com");
    const idem = crypto.randomUUID();
    await expectInvalid(await upload(main, key, { title: "T".repeat(301) }, undefined, { "Idempotency-Key": idem }), "title");
    const fixed = await upload(main, key, { title: "Fixed" }, undefined, { "Idempotency-Key": idem });
    expect(fixed.headers.get("idempotent-replayed")).toBeNull();
    const meeting = await accepted(fixed);
    expect(meeting.title).toBe("Fixed");
    const again = await upload(main, key, { title: "Fixed" }, undefined, { "Idempotency-Key": idem });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as Json).id).toBe(meeting.id);
    expect(await countMeetings(main, key)).toBe(1);
  });

  test("keys are per account: another user may use the same key", async () => {
    const [a, b] = await Promise.all([createUserWithKey(main, "idem-a@example.com"), createUserWithKey(main, "idem-b@example.com")]);
    const idem = "shared-key-123";
    const first = await accepted(await upload(main, a, { title: "Mine" }, undefined, { "Idempotency-Key": idem }));
    const theirs = await upload(main, b, { title: "Mine" }, undefined, { "Idempotency-Key": idem });
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    const second = await accepted(theirs);
    expect(second.id).not.toBe(first.id);
    expect(await countMeetings(main, a)).toBe(1);
    expect(await countMeetings(main, b)).toBe(1);
    expect((await main.api(`/api/v1/meetings/${first.id}`, { key: b })).status).toBe(404);
  });
});

describe("upload limits and aborted uploads", () => {
  let cleanKey: string;
  beforeAll(async () => {
    cleanKey = await createUserWithKey(clean, "clean@example.com");
  }, 20_000);

  function expectNothingKept() {
    expect(entries(clean, "tmp")).toEqual([]);
    expect(entries(clean, "meetings")).toEqual([]);
  }

  test("a file of 2 GB (2,000,000,000 bytes) + 1 byte is 413 file_too_large, and nothing is kept", async () => {
    const sparse = join(scratch, "huge.wav");
    // A WAV header, then zeros: a recording's first bytes, so only its size is refused.
    writeFileSync(sparse, wavSizedBytes(4096));
    truncateSync(sparse, LIMIT + 1);
    const boundary = "huge-upload-boundary";
    const { body, contentLength } = multipartStream(boundary, [["title", "Huge"]], { name: "huge.wav", path: sparse });
    // Declared below the file limit plus form overhead, so the server must count the bytes itself.
    expect(contentLength).toBeGreaterThan(LIMIT + 1);
    expect(contentLength).toBeLessThan(LIMIT + 1024 * 1024);
    const started = Date.now();
    const response = await clean.api("/api/v1/meetings", {
      method: "POST",
      key: cleanKey,
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": String(contentLength) },
      body: body as unknown as RequestInit["body"],
    });
    const elapsed = Date.now() - started;
    await expectProblem(response, 413, "file_too_large");
    expect(elapsed).toBeLessThan(60_000);
    rmSync(sparse, { force: true });
    expect(await countMeetings(clean, cleanKey)).toBe(0);
    expect(await countJobs(clean, cleanKey)).toBe(0);
    await eventually(expectNothingKept);
    // The server goes on answering.
    expect((await clean.api("/api/v1/me", { key: cleanKey })).status).toBe(200);
  }, 90_000);

  test("a declared Content-Length above the limit is refused at once with problem+json, before any body", async () => {
    const port = Number(new URL(clean.url).port);
    const answer = await rawRequest(port, [
      "POST /api/v1/meetings HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${cleanKey}`,
      "Content-Type: multipart/form-data; boundary=xyz",
      // Above 2 GB + the 1 MiB form allowance, below Bun's own ceiling (which answers a bare 413).
      `Content-Length: ${LIMIT + 4 * 1024 * 1024}`,
      "",
      "",
    ].join("\r\n"), { waitFor: /"request_id"/, timeoutMs: 5000 });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(answer).toContain('"code":"file_too_large"');
    await eventually(expectNothingKept);
  }, 15_000);

  test("a client that disconnects mid-upload leaves no meeting and no file", async () => {
    const port = Number(new URL(clean.url).port);
    const boundary = "disconnect-boundary";
    const { head } = multipartParts(boundary, [["title", "Gone"]], "gone.wav");
    const fileBytes = 4 * 1024 * 1024;
    const total = Buffer.byteLength(head) + fileBytes + `\r\n--${boundary}--\r\n`.length;
    const socket = await connect(port);
    await socket.send(
      Buffer.from(
        [
          "POST /api/v1/meetings HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          `Authorization: Bearer ${cleanKey}`,
          `Content-Type: multipart/form-data; boundary=${boundary}`,
          `Content-Length: ${total}`,
          "",
          head,
        ].join("\r\n"),
      ),
    );
    const chunk = Buffer.alloc(256 * 1024, 7);
    // The file starts like a WAV: its first bytes are checked (a recording, or 415 at once).
    const first = Buffer.from(chunk);
    first.set(wavSizedBytes(12));
    for (let sent = 0; sent < fileBytes / 2; sent += chunk.byteLength) await socket.send(sent === 0 ? first : chunk);
    // The server is streaming the file to its temp folder...
    await eventually(() => expect(entries(clean, "tmp").length).toBe(1), 5000);
    // ...when the client goes away.
    socket.close();
    await eventually(expectNothingKept, 5000);
    expect(await countMeetings(clean, cleanKey)).toBe(0);
    expect(await countJobs(clean, cleanKey)).toBe(0);
    expect(socket.received()).not.toMatch(/HTTP\/1\.1 202/);
    expect((await clean.api("/api/v1/me", { key: cleanKey })).status).toBe(200);
  });
});

describe("recordings that are not audio, and other containers", () => {
  test("random bytes named .mp3 and a text file are refused at upload (415 unsupported_media); a file that only starts like a WAV fails in the worker; the API and worker carry on", async () => {
    const key = await createUserWithKey(main, "junk@example.com");
    for (const data of [crypto.getRandomValues(new Uint8Array(50 * 1024)), new TextEncoder().encode("Minutes of the meeting.\nNothing to hear here.\n")]) {
      await expectProblem(await upload(main, key, {}, { data: new Blob([data]), name: "notes.mp3" }), 415, "unsupported_media");
    }
    expect(await countMeetings(main, key)).toBe(0);
    const noise = await accepted(await upload(main, key, {}, { data: new Blob([undecodableRecording(50 * 1024)]), name: "notes.mp3" }));
    expect(noise.title).toBe("notes");
    const { job: failed } = await waitJob(main, key, noise.job.id);
    expect(failed.status).toBe("failed");
    expect(failed.error.code).toBe("unsupported_media");
    expect(typeof failed.error.message).toBe("string");
    expect(failed.finished_at).toEqual(expect.any(String));
    expect(await getMeeting(main, key, noise.id)).toMatchObject({ status: "failed", has_transcript: false, has_summary: false });
    expect((await main.api("/api/v1/me", { key })).status).toBe(200);
    const good = await accepted(await upload(main, key));
    const { job } = await waitJob(main, key, good.job.id);
    expect(job.status).toBe("completed");
    expect((await getMeeting(main, key, good.id)).duration_seconds).toBe(29);
  }, 70_000);

  test("an mp3 and an mp4 made from the 66 s wav both complete with duration 66", async () => {
    const encoders = Bun.spawnSync(["ffmpeg", "-hide_banner", "-encoders"]).stdout.toString();
    const video = /\blibx264\b/.test(encoders) ? "libx264" : "mpeg4";
    const mp3 = join(scratch, "meeting.mp3");
    const mp4 = join(scratch, "meeting.mp4");
    const run = async (args: string[]) => {
      const proc = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", ...args], { stdout: "ignore", stderr: "pipe" });
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      if (code !== 0) throw new Error(`ffmpeg ${args.join(" ")} failed: ${stderr}`);
    };
    await Promise.all([
      run(["-y", "-i", EN_WAV, "-codec:a", "libmp3lame", mp3]),
      run(["-y", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=66", "-i", EN_WAV, "-shortest", "-c:v", video, "-c:a", "aac", mp4]),
    ]);
    const key = await createUserWithKey(main, "containers@example.com");
    const meetings = [
      await accepted(await upload(main, key, {}, { data: Bun.file(mp3), name: "meeting.mp3" })),
      await accepted(await upload(main, key, {}, { data: Bun.file(mp4), name: "meeting.mp4" })),
    ];
    for (const meeting of meetings) {
      const { job } = await waitJob(main, key, meeting.job.id);
      expect(job.status).toBe("completed");
      const done = await getMeeting(main, key, meeting.id);
      expect(done.status).toBe("completed");
      expect(Math.abs(done.duration_seconds - 66)).toBeLessThanOrEqual(1);
    }
  }, 70_000);
});

describe("parallel processing limit", () => {
  let free: string;
  let pro: string;
  let first: Json;
  const firstKey = crypto.randomUUID();
  beforeAll(async () => {
    [free, pro] = await Promise.all([
      createUserWithKey(slots, "free@example.com", "all", "free"),
      createUserWithKey(slots, "pro@example.com", "all", "pro"),
    ]);
  }, 20_000);

  test("a free account with its one slot busy gets 429 parallel_processing_limit with Retry-After 30, nothing created", async () => {
    first = await accepted(await upload(slots, free, { title: "Busy" }, undefined, { "Idempotency-Key": firstKey }));
    const refused = await upload(slots, free, { title: "Second" });
    expect(refused.headers.get("retry-after")).toBe("30");
    await expectProblem(refused, 429, "parallel_processing_limit");
    // Refused the same way for a valid JSON request, and with another Idempotency-Key (which is not burnt).
    const json = await postJson(slots, free, { audio_url: `http://127.0.0.1:${files.port}/meeting.wav` });
    expect(json.headers.get("retry-after")).toBe("30");
    await expectProblem(json, 429, "parallel_processing_limit");
    const idem = crypto.randomUUID();
    await expectProblem(await upload(slots, free, { title: "Third" }, undefined, { "Idempotency-Key": idem }), 429, "parallel_processing_limit");
    expect(await countMeetings(slots, free)).toBe(1);
    expect(await countJobs(slots, free)).toBe(1);
    await eventually(() => expect(entries(slots, "tmp")).toEqual([]));
    expect(entries(slots, "meetings")).toEqual([first.id]);
    const job = (await (await slots.api(`/api/v1/jobs/${first.job.id}`, { key: free })).json()) as Json;
    expect(["queued", "processing"]).toContain(job.status);
  }, 30_000);

  test("a retry of the accepted request with its Idempotency-Key is replayed, not refused for the slot it holds itself", async () => {
    const retry = await upload(slots, free, { title: "Busy" }, undefined, { "Idempotency-Key": firstKey });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toEqual(first);
    expect(await countMeetings(slots, free)).toBe(1);
    await eventually(() => expect(entries(slots, "tmp")).toEqual([]));
  });

  test("a pro account is unaffected, and the free account stays refused while its job runs", async () => {
    const proMeeting = await accepted(await upload(slots, pro, { title: "Pro" }));
    expect(proMeeting.status).toBe("queued");
    expect(await countMeetings(slots, pro)).toBe(1);
    await expectProblem(await upload(slots, free, {}), 429, "parallel_processing_limit");
    expect(await countMeetings(slots, free)).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Raw TCP, for what fetch cannot do: declare a size and not send it, or go away mid-body.

async function connect(port: number) {
  let received = "";
  let drained: (() => void) | undefined;
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, data) {
        received += data.toString("latin1");
      },
      drain() {
        drained?.();
      },
      error() {},
      close() {
        drained?.();
      },
    },
  });
  return {
    /** Writes all of `bytes`, waiting for the socket to drain between partial writes. */
    async send(bytes: Uint8Array) {
      let offset = 0;
      while (offset < bytes.byteLength) {
        const written = socket.write(bytes.subarray(offset));
        if (written < 0) throw new Error("socket closed");
        offset += written;
        if (offset < bytes.byteLength) await new Promise<void>((resolve) => (drained = resolve));
      }
    },
    received: () => received,
    close: () => socket.end(),
  };
}

async function rawRequest(port: number, text: string, options: { waitFor: RegExp; timeoutMs: number }): Promise<string> {
  const socket = await connect(port);
  await socket.send(Buffer.from(text));
  const deadline = Date.now() + options.timeoutMs;
  while (!options.waitFor.test(socket.received()) && Date.now() < deadline) await Bun.sleep(20);
  socket.close();
  return socket.received();
}

// The documents' use cases called directly over a real SQLite file (no HTTP): a request queues a
// document_generation job with its request row in one transaction (rolled back whole when
// admission refuses), the idempotent request replays, and the reads see only the actor's documents.
import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Actor } from "../auth/actor.ts";
import { addUser } from "../auth/user-store.ts";
import { sql, type SQL } from "drizzle-orm";
import { run } from "../db/conn.ts";
import { row } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { IdempotencyStore } from "../idempotency/service.ts";
import { DEFAULT_BILLING } from "../usage/settings.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { documentsApp, isDocumentFileFormat, type DocumentsApp } from "./app.ts";
import type { MeetingMaterial } from "./material-store.ts";
import { documents } from "./table.ts";
import { localDiskStorage } from "../storage/local-disk.ts";

const NOW = Date.parse("2026-11-10T12:00:00Z");
const MEETING = "0b6f1c2e-6a43-4c1e-9d55-2f1a8e3b7c01";
const OTHER_MEETING = "5d2a9b70-1c3e-4f8a-b6d2-7e9f0a1b2c3d";
const template = { id: "general-minutes", name: "Minutes", prompt: "Write the minutes.", description: null, icon: null, persona: "general", source: "builtin" };

let database: TempDatabase;
let dataDir: string;
let wakes: number;
let renders: number;
let material: Record<string, MeetingMaterial>;
let app: DocumentsApp;
let alice: Actor;
let bob: Actor;

function meetingOf(userId: string, meetingId: string, change: Partial<MeetingMaterial> = {}): MeetingMaterial {
  return {
    meetingId,
    userId,
    title: "Weekly",
    date: "2026-11-09T10:00:00Z",
    language: "en",
    transcribeOnly: false,
    status: "completed",
    participants: ["Ada"],
    unattributedSpeakers: [],
    report: { markdown: "# Report\n\nDone.", language: "en" },
    transcript: null,
    ...change,
  };
}

const count = async (table: "jobs" | "document_requests") => (await run(database.conn, (q) => row<{ n: number }>(q, sql`SELECT count(*) AS n FROM ${sql.identifier(table)}`)))!.n;
const rowOf = (query: SQL) => run(database.conn, (q) => row<Record<string, string>>(q, query));

function withApp(slots: Record<string, number> = { free: 2 }, billing = DEFAULT_BILLING) {
  app = documentsApp({
    conn: database.conn,
    clock: { now: () => NOW },
    jobQueue: JOBS_TABLE_QUEUE,
    slots,
    billing,
    templates: { get: (id) => (id === template.id ? template : undefined) },
    loadMaterial: async (_q, meetingId) => material[meetingId.toLowerCase()],
    storage: localDiskStorage(dataDir),
    idempotency: new IdempotencyStore(database.conn, { now: () => NOW }),
    render: async (format) => {
      renders += 1;
      return new TextEncoder().encode(`%${format} render`);
    },
    scheduler: { wake: () => void (wakes += 1) },
  });
}

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  throw new Error("not refused");
}

async function insertDocument(id: string, userId: string, meetingId: string, createdAt: number) {
  await run(database.conn, (q) =>
    q
      .insert(documents)
      .values({ id, userId, meetingId, jobId: `job_${id}`, title: `Doc ${id}`, templateId: null, language: "en", model: "m", markdown: `# ${id}`, createdAt, updatedAt: createdAt }),
  );
}

beforeEach(async () => {
  database = tempDatabase("documents-app");
  dataDir = mkdtempSync(join(tmpdir(), "verbatim-documents-app-"));
  wakes = 0;
  renders = 0;
  const a = await addUser(database.conn, { email: "alice@firm.example", plan: "free" });
  const b = await addUser(database.conn, { email: "bob@firm.example", plan: "free" });
  alice = { account: { userId: a.id, plan: "free" }, channel: "api", credential: { type: "web_session", id: "a" } };
  bob = { account: { userId: b.id, plan: "free" }, channel: "webapp", credential: { type: "web_session", id: "b" } };
  material = { [MEETING]: meetingOf(a.id, MEETING), [OTHER_MEETING]: meetingOf(b.id, OTHER_MEETING) };
  withApp();
});
afterEach(async () => {
  await database.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("documents.request", () => {
  test("queues a document_generation job on the actor's channel with its request, and wakes the scheduler", async () => {
    const jobId = await app.request(alice, MEETING.toUpperCase(), { template_id: template.id, include_transcript: false });
    const job = await rowOf(sql`SELECT kind, channel, meeting_id FROM jobs WHERE id = ${jobId}`);
    expect(job).toEqual({ kind: "document_generation", channel: "api", meeting_id: MEETING });
    const request = await rowOf(sql`SELECT meeting_id, task, title, template_id FROM document_requests WHERE job_id = ${jobId}`);
    expect(request).toEqual({ meeting_id: MEETING, task: template.prompt, title: "Minutes", template_id: template.id });
    expect(wakes).toBe(1);

    const webJob = await app.request(bob, OTHER_MEETING, { prompt: "A letter.", title: "Letter", include_transcript: true });
    expect((await rowOf(sql`SELECT channel FROM jobs WHERE id = ${webJob}`))!.channel).toBe("webapp");
  });

  test("refuses another account's meeting (404), a meeting without its report (409) and an unknown template (422), queuing nothing", async () => {
    expect(await refusal(app.request(alice, OTHER_MEETING, { prompt: "x", include_transcript: false }))).toBe("not_found");
    material[MEETING] = meetingOf(alice.account.userId, MEETING, { report: null });
    expect(await refusal(app.request(alice, MEETING, { prompt: "x", include_transcript: false }))).toBe("summary_not_ready");
    material[MEETING] = meetingOf(alice.account.userId, MEETING, { transcribeOnly: true });
    expect(await refusal(app.request(alice, MEETING, { prompt: "x", include_transcript: false }))).toBe("summary_not_ready");
    material[MEETING] = meetingOf(alice.account.userId, MEETING, { status: "processing" });
    expect(await refusal(app.request(alice, MEETING, { prompt: "x", include_transcript: false }))).toBe("summary_not_ready");
    material[MEETING] = meetingOf(alice.account.userId, MEETING);
    expect(await refusal(app.request(alice, MEETING, { template_id: "nope", include_transcript: false }))).toBe("validation_error");
    withApp({ free: 0 });
    expect(await refusal(app.request(alice, MEETING, { prompt: "x", include_transcript: false }))).toBe("parallel_processing_limit");
    expect(await count("jobs")).toBe(0);
    expect(await count("document_requests")).toBe(0);
    expect(wakes).toBe(0);
  });

  test("an admission refused after the job was queued rolls the whole transaction back", async () => {
    withApp({ free: 2 }, { ...DEFAULT_BILLING, webappQuotas: { ...DEFAULT_BILLING.webappQuotas, documents: { free: 0 } } });
    expect(await refusal(app.request(bob, OTHER_MEETING, { prompt: "x", include_transcript: false }))).toBe("webapp_quota_reached");
    expect(await count("jobs")).toBe(0);
    expect(await count("document_requests")).toBe(0);
    // The database is free again: the next request commits.
    withApp();
    await app.request(bob, OTHER_MEETING, { prompt: "x", include_transcript: false });
    expect(await count("jobs")).toBe(1);
  });
});

describe("documents.requestOnce", () => {
  test("answers 202 with the job; the same key replays it without a second job, another body is refused", async () => {
    const body = { template_id: template.id, include_transcript: false };
    const first = await app.requestOnce(alice, MEETING, body, "key-1");
    expect(first.status).toBe(202);
    expect(first.replayed).toBe(false);
    expect((first.body as { object: string; kind: string }).kind).toBe("document_generation");
    const again = await app.requestOnce(alice, MEETING, body, "key-1");
    expect(again).toEqual({ ...first, replayed: true });
    expect(await count("jobs")).toBe(1);
    expect(await refusal(app.requestOnce(alice, MEETING, { prompt: "other", include_transcript: false }, "key-1"))).toBe("idempotency_key_reused");
    const unkeyed = await app.requestOnce(alice, MEETING, body, null);
    expect(unkeyed.replayed).toBe(false);
    expect(await count("jobs")).toBe(2);
  });
});

describe("documents.list, get and file", () => {
  beforeEach(async () => {
    await insertDocument("doc_a1", alice.account.userId, MEETING, NOW - 2000);
    await insertDocument("doc_a2", alice.account.userId, MEETING, NOW - 1000);
    await insertDocument("doc_b1", bob.account.userId, OTHER_MEETING, NOW);
  });

  test("list: the actor's documents only, most recent first, without their Markdown, paginated", async () => {
    const page = await app.list(alice, { limit: 1 });
    expect(page.data.map((d) => d.id)).toEqual(["doc_a2"]);
    expect(page.has_more).toBe(true);
    expect("markdown" in page.data[0]!).toBe(false);
    const next = await app.list(alice, { limit: 1, cursor: page.next_cursor! });
    expect(next.data.map((d) => d.id)).toEqual(["doc_a1"]);
    expect((await app.list(alice, { limit: 10, meeting_id: OTHER_MEETING })).data).toEqual([]);
  });

  test("get: the document with its Markdown; another account's is not found", async () => {
    const doc = await app.get(alice, "doc_a1");
    expect(doc).toMatchObject({ id: "doc_a1", object: "document", meeting_id: MEETING, markdown: "# doc_a1" });
    expect(await refusal(app.get(alice, "doc_b1"))).toBe("not_found");
  });

  test("file: Markdown as stored; a PDF rendered once, then served from the cache", async () => {
    expect(await app.file(alice, "doc_a1", "md")).toEqual({ fileName: "doc_a1.md", title: "Doc doc_a1", templateId: null, contentType: "text/markdown; charset=utf-8", body: "# doc_a1", cached: null });
    const first = await app.file(alice, "doc_a1", "pdf");
    expect(first).toMatchObject({ fileName: "doc_a1.pdf", contentType: "application/pdf", cached: false });
    const second = await app.file(alice, "doc_a1", "pdf");
    expect(second.cached).toBe(true);
    expect(new TextDecoder().decode(second.body as Uint8Array)).toBe("%pdf render");
    expect(renders).toBe(1);
    expect(await refusal(app.file(alice, "doc_b1", "docx"))).toBe("not_found");
  });

  test("delete: the document, its request and its renders go; the meeting's other documents stay; another account's is not found", async () => {
    await app.file(alice, "doc_a1", "pdf");
    await app.file(alice, "doc_a2", "pdf");
    await app.delete(alice, "doc_a1");
    expect(await refusal(app.get(alice, "doc_a1"))).toBe("not_found");
    expect((await app.list(alice, { limit: 10 })).data.map((d) => d.id)).toEqual(["doc_a2"]);
    const left = await localDiskStorage(dataDir).list(MEETING, "documents");
    expect(left.some((name) => name.includes("doc_a1"))).toBe(false);
    expect(left.some((name) => name.includes("doc_a2"))).toBe(true);
    expect(await refusal(app.delete(alice, "doc_b1"))).toBe("not_found");
    expect((await app.get(bob, "doc_b1")).id).toBe("doc_b1");
  });

  test("isDocumentFileFormat names the three file formats only", () => {
    expect(["md", "pdf", "docx", "json", "toString"].map(isDocumentFileFormat)).toEqual([true, true, true, false, false]);
  });
});

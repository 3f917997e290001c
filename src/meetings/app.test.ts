import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Actor } from "../auth/actor.ts";
import { addUser } from "../auth/user-store.ts";
import { run } from "../db/conn.ts";
import { IdempotencyStore } from "../idempotency/service.ts";
import { jobs } from "../jobs/table.ts";
import { DEFAULT_PARALLEL_SLOTS } from "../jobs/slots.ts";
import { emptyEgressPolicy } from "../net/egress.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { recordingPath, uploadsTmpDir } from "../storage/paths.ts";
import { UploadsInFlight } from "../uploads/in-flight.ts";
import { DEFAULT_BILLING } from "../usage/settings.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { wavSizedBytes } from "../../test/helpers/recordings.ts";
import { meetingsApp, UploadRequired, type MeetingsApp } from "./app.ts";
import { sweepIdleDrafts } from "./draft-upkeep.ts";
import { createMeetingUpload } from "./schema.ts";
import { meetings, reports } from "./table.ts";

const NOW = 1_800_000_000_000;
const TEXT = "[00:00:05] Alice Martin: Good morning.\n(00:12) Bob: Hello, let us start.\n[00:01:02] Alice Martin: First, the budget.\n";

let store: TempDatabase;
let dataDir: string;
let app: MeetingsApp;
let wakes: number;
let canceled: string[];
let truncations: number;
let api: Actor;
let web: Actor;
let stranger: Actor;

const fields = (raw: Record<string, unknown> = {}) => createMeetingUpload.parse(raw);

beforeEach(async () => {
  store = tempDatabase("meetings-app");
  dataDir = mkdtempSync(join(tmpdir(), "verbatim-meetings-app-"));
  mkdirSync(uploadsTmpDir(dataDir), { recursive: true });
  wakes = 0;
  canceled = [];
  truncations = 0;
  const clock = { now: () => NOW };
  app = meetingsApp({
    conn: store.conn,
    storage: localDiskStorage(dataDir),
    jobQueue: JOBS_TABLE_QUEUE,
    clock,
    slots: DEFAULT_PARALLEL_SLOTS,
    billing: DEFAULT_BILLING,
    idempotency: new IdempotencyStore(store.conn, clock),
    egress: emptyEgressPolicy(),
    maxUploadBytes: 10 * 1024 * 1024,
    templates: { has: (id) => id === "tpl_minutes", hasPersona: () => false },
    uploads: new UploadsInFlight(),
    measureRecording: async () => 60,
    minFreeDisk: { percent: 0, bytes: 0 },
    drafts: { maxOpen: 2, maxBytes: 100 * 1024 * 1024, idleMs: 7 * 24 * 3600 * 1000 },
    wal: { afterDeletion: () => void truncations++ },
    publicApiUrl: () => "https://verbatim.example/api",
    scheduler: { wake: () => void wakes++, cancel: (ids) => void canceled.push(...ids) },
  });
  const actorOf = async (email: string, channel: Actor["channel"]): Promise<Actor> => {
    const user = await addUser(store.conn, { email, plan: "pro" }, NOW);
    return {
      account: { userId: user.id, plan: "pro" },
      channel,
      credential: channel === "api" ? { type: "api_key", id: "key_1", name: null, scopes: [], expiresAt: null } : { type: "web_session", id: "ses_1" },
    };
  };
  api = await actorOf("owner@example.com", "api");
  web = { ...api, channel: "webapp", credential: { type: "web_session", id: "ses_1" } };
  stranger = await actorOf("stranger@example.com", "api");
});

afterEach(async () => {
  await store.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

function uploadRequest(form: Record<string, string>, key?: string): Request {
  const body = new FormData();
  for (const [name, value] of Object.entries(form)) body.set(name, value);
  body.set("file", new Blob([wavSizedBytes(4096)]), "weekly sync.wav");
  return new Request("http://localhost/api/v1/meetings", { method: "POST", body, headers: key ? { "idempotency-key": key } : {} });
}

const jobsOf = async (meetingId: string) => run(store.conn, (q) => q.select().from(jobs).where(eq(jobs.meetingId, meetingId)));

/** A text meeting (transcript and participants stored, its report-only job queued) of the API actor. */
async function textMeeting(): Promise<string> {
  return app.createFromText(api, fields({ title: "Budget" }), TEXT);
}

async function complete(meetingId: string): Promise<void> {
  await run(store.conn, (q) => q.update(meetings).set({ status: "completed" }).where(eq(meetings.id, meetingId)));
  await run(store.conn, (q) => q.update(jobs).set({ status: "completed" }).where(eq(jobs.meetingId, meetingId)));
}

describe("receiveUpload", () => {
  test("API: the file is stored as the meeting's recording, its job queued on the API channel, the scheduler woken; the key replays", async () => {
    const first = await app.receiveUpload(api, uploadRequest({ title: "Weekly" }, "k1"), { idempotencyKey: "k1" });
    expect(first).toMatchObject({ status: 202, replayed: false, body: { object: "meeting", title: "Weekly", status: "queued", source: "upload" } });
    const id = first.meetingId!;
    expect(existsSync(recordingPath(dataDir, id))).toBe(true);
    expect(await jobsOf(id)).toMatchObject([{ kind: "meeting_processing", channel: "api", status: "queued" }]);
    expect(wakes).toBe(1);
    const again = await app.receiveUpload(api, uploadRequest({ title: "Weekly" }, "k1"), { idempotencyKey: "k1" });
    expect(again).toMatchObject({ status: 202, replayed: true, meetingId: null, body: first.body as object });
    expect(wakes).toBe(1);
  });

  test("web app: empty inputs mean not given, the job is the web app's, no key is kept", async () => {
    const received = await app.receiveUpload(web, uploadRequest({ title: "", language: "" }), { idempotencyKey: "ignored" });
    const [row] = await run(store.conn, (q) => q.select().from(meetings).where(eq(meetings.id, received.meetingId!)));
    expect(row).toMatchObject({ title: "weekly sync", titleSource: "file", requestedLanguage: "auto", status: "queued" });
    expect(await jobsOf(row!.id)).toMatchObject([{ channel: "webapp" }]);
    expect(received.body).toBeNull();
    expect(wakes).toBe(1);
  });

  test("a busy account is refused before its file is stored (429), and a malformed request is a 400 first", async () => {
    const busy = { ...api, account: { ...api.account, plan: "free" as const } };
    await app.receiveUpload(busy, uploadRequest({}), { idempotencyKey: null });
    await expect(app.receiveUpload(busy, uploadRequest({}), { idempotencyKey: null })).rejects.toMatchObject({ code: "parallel_processing_limit" });
    await expect(app.receiveUpload(busy, uploadRequest({ language: "klingon" }), { idempotencyKey: null })).rejects.toMatchObject({ code: "validation_error" });
  });

  test("web app: a JSON audio_url is not an upload", async () => {
    const request = new Request("http://localhost/meetings/new", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ audio_url: "https://93.184.215.14/a.mp3" }),
    });
    await expect(app.receiveUpload(web, request, { idempotencyKey: null })).rejects.toBeInstanceOf(UploadRequired);
    expect(await run(store.conn, (q) => q.select().from(meetings))).toEqual([]);
  });
});

describe("create", () => {
  test("an audio_url meeting starts with its download step; its title comes from the URL", async () => {
    const { meetingId, jobId } = await app.create(api, fields({ metadata: { ref: 1 } }), { kind: "url", url: "https://example.com/calls/quarterly%20review.mp3" });
    const meeting = await app.get(api, meetingId);
    expect(meeting).toMatchObject({ title: "quarterly review", source: "url", metadata: { ref: 1 }, job: { id: jobId, status: "queued" } });
    expect(await jobsOf(meetingId)).toMatchObject([{ nextStep: "download", channel: "api" }]);
    expect(wakes).toBe(1);
  });
});

describe("create: one transaction", () => {
  test("a refusal inside the creating transaction leaves no row, no job and no folder", async () => {
    const busy = { ...api, account: { ...api.account, plan: "free" as const } };
    const upload = (name: string) => {
      const tmpPath = join(uploadsTmpDir(dataDir), name);
      writeFileSync(tmpPath, wavSizedBytes(4096));
      return { kind: "upload" as const, tmpPath, fileName: `${name}.wav` };
    };
    const first = await app.create(busy, fields(), upload("one"));
    await expect(app.create(busy, fields({ tags: ["x"], client: { name: "Acme" } }), upload("two"))).rejects.toMatchObject({ code: "parallel_processing_limit" });
    expect((await run(store.conn, (q) => q.select().from(meetings))).map((m) => m.id)).toEqual([first.meetingId]);
    expect(await run(store.conn, (q) => q.select().from(jobs))).toHaveLength(1);
    expect(readdirSync(join(dataDir, "meetings"))).toEqual([first.meetingId]);
  });
});

describe("text meetings", () => {
  test("createFromText stores the transcript, makes its speakers participants and queues the report", async () => {
    const id = await textMeeting();
    expect(await app.participants(api, id)).toMatchObject([
      { object: "participant", name: "Alice Martin", speaker_labels: ["SPEAKER_00"] },
      { object: "participant", name: "Bob", speaker_labels: ["SPEAKER_01"] },
    ]);
    expect(await jobsOf(id)).toMatchObject([{ payload: { reportOnly: true }, channel: "api", nextStep: "summarize" }]);
    expect((await app.transcript(api, id)).transcript.segments[0]).toMatchObject({ speaker_name: "Alice Martin", text: "Good morning." });
    expect(wakes).toBe(1);
  });

  test("a text without words is a 400 and leaves nothing", async () => {
    await expect(app.createFromText(api, fields(), "  \n")).rejects.toMatchObject({ code: "validation_error" });
    expect(await run(store.conn, (q) => q.select().from(meetings))).toEqual([]);
  });
});

describe("drafts", () => {
  test("createDraft, storeDraftPart, draftParts, finishDraft: the parts joined and the job queued on the web app channel", async () => {
    const id = await app.createDraft(web, { title: "Recorded" }, { source: "live_recording", fileName: null });
    expect(await app.draftParts(web, id)).toEqual({ status: "draft", received: [], bytes: 0 });
    const part = wavSizedBytes(1024);
    await app.storeDraftPart(web, id, 0, async () => part);
    expect(await app.draftParts(web, id)).toEqual({ status: "draft", received: [0], bytes: part.length });
    const page = await app.page(web, id);
    expect(page.draft).toMatchObject({ parts: 1, bytes: part.length });
    const jobId = await app.finishDraft(web, id, part.length);
    expect(await jobsOf(id)).toMatchObject([{ id: jobId, channel: "webapp" }]);
    expect(existsSync(recordingPath(dataDir, id))).toBe(true);
    // Once for the live transcript the part queued (issue 25; removed by finishing), once for the processing.
    expect(wakes).toBe(2);
    await expect(app.storeDraftPart(web, id, 1, async () => part)).rejects.toMatchObject({ code: "draft_closed" });
  });

  test("the idle sweep (sweepIdleDrafts) deletes, as a meeting, only the drafts untouched for drafts.idleMs", async () => {
    const idle = await app.createDraft(web, {}, { source: "live_recording", fileName: null });
    const idleMs = 7 * 24 * 3600 * 1000;
    const deps = { conn: store.conn, storage: localDiskStorage(dataDir), wal: { afterDeletion: () => void truncations++ }, cancelJobs: (ids: string[]) => void canceled.push(...ids) };
    expect(await sweepIdleDrafts(deps, { idleMs }, NOW + idleMs)).toBe(0);
    expect(await sweepIdleDrafts(deps, { idleMs }, NOW + idleMs + 1)).toBe(1);
    await expect(app.draftParts(web, idle)).rejects.toMatchObject({ code: "not_found" });
    expect(truncations).toBe(1);
  });

  test("an account keeps at most drafts.maxOpen drafts open; finishing an empty draft is refused", async () => {
    const id = await app.createDraft(web, {}, { source: "upload", fileName: "a.wav" });
    await app.createDraft(web, {}, { source: "upload", fileName: "b.wav" });
    await expect(app.createDraft(web, {}, { source: "upload", fileName: "c.wav" })).rejects.toMatchObject({ code: "draft_limit_reached" });
    await expect(app.finishDraft(web, id)).rejects.toMatchObject({ code: "draft_incomplete" });
    await expect(app.createDraft(web, { language: "klingon" }, { source: "upload", fileName: null })).rejects.toMatchObject({ code: "validation_error" });
  });
});

describe("reading and changing a meeting", () => {
  test("get, list and row answer the owner only; another account gets 404", async () => {
    const id = await textMeeting();
    expect(await app.get(api, id)).toMatchObject({ id, title: "Budget", has_transcript: true, has_summary: false });
    expect((await app.list(api, { limit: 20 })).data.map((m) => m.id)).toEqual([id]);
    expect((await app.row(api, id.toUpperCase())).id).toBe(id);
    await expect(app.get(stranger, id)).rejects.toMatchObject({ code: "not_found" });
    await expect(app.get(api, "not-a-uuid")).rejects.toMatchObject({ code: "not_found" });
    expect((await app.list(stranger, { limit: 20 })).data).toEqual([]);
  });

  test("patch and rename change the meeting and answer it; nameSpeakers gives labels names", async () => {
    const id = await textMeeting();
    expect(await app.patch(api, id, { tags: ["b", "a"], client: { name: "Acme" } })).toMatchObject({ tags: ["a", "b"], client: { name: "Acme" } });
    expect(await app.rename(api, id, "Renamed")).toMatchObject({ title: "Renamed" });
    await app.nameSpeakers(api, id, new Map([["SPEAKER_01", "Robert"]]));
    expect((await app.participants(api, id)).map((p) => p.name)).toEqual(["Alice Martin", "Robert"]);
    await expect(app.patch(stranger, id, { title: "x" })).rejects.toMatchObject({ code: "not_found" });
  });

  test("correctSegment keeps versions; corrections lists them; the page marks the line", async () => {
    const id = await textMeeting();
    expect(await app.correctSegment(api, id, 0, "Good morning all.")).toEqual({ text: "Good morning all.", version: 1 });
    expect(await app.correctSegment(api, id, 0, "Good morning all.")).toEqual({ text: "Good morning all.", version: 1 });
    expect(await app.corrections(api, id)).toMatchObject([{ segment_index: 0, version: 1, previous_text: "Good morning.", text: "Good morning all." }]);
    expect((await app.page(api, id)).corrected).toEqual(new Set([0]));
    await expect(app.correctSegment(api, id, 0, "")).rejects.toMatchObject({ code: "validation_error" });
  });

  test("regenerateReport needs a completed meeting, then queues a report-only job on the actor's channel", async () => {
    const id = await textMeeting();
    await expect(app.regenerateReport(web, id)).rejects.toMatchObject({ code: "transcript_not_ready" });
    await complete(id);
    const jobId = await app.regenerateReport(web, id);
    expect((await jobsOf(id)).find((j) => j.id === jobId)).toMatchObject({ payload: { reportOnly: true }, channel: "webapp", status: "queued" });
    expect(await app.progress(web, id)).toMatchObject({ status: "completed", rewritingReport: true, pendingDocuments: 0 });
    expect(wakes).toBe(2);
  });

  test("report, exportInput, recording and page", async () => {
    const id = await textMeeting();
    await expect(app.report(api, id)).rejects.toMatchObject({ code: "summary_not_ready" });
    await run(store.conn, (q) => q.insert(reports).values({ meetingId: id, title: "R", language: "en", markdown: "# R", structured: null, model: "m", createdAt: NOW, updatedAt: NOW }));
    expect((await app.report(api, id)).markdown).toBe("# R");
    expect(await app.exportInput(api, id)).toMatchObject({ meeting: { id, title: "Budget" }, reportMarkdown: "# R", participants: [{ name: "Alice Martin" }, { name: "Bob" }] });
    expect(await app.recording(api, id)).toBeNull();
    const page = await app.page(api, id);
    expect(page).toMatchObject({ hasRecording: false, rewritingReport: true, draft: undefined, meeting: { has_summary: true } });
    expect(page.speakers).toEqual([
      { label: "SPEAKER_00", name: "Alice Martin" },
      { label: "SPEAKER_01", name: "Bob" },
    ]);
    expect(page.transcript?.segments).toHaveLength(3);
  });

  test("delete cancels the jobs, removes the rows and the folder, and truncates the WAL", async () => {
    const id = await textMeeting();
    await expect(app.delete(stranger, id)).rejects.toMatchObject({ code: "not_found" });
    await app.delete(api, id);
    expect(canceled).toEqual((await jobsOf(id)).map((j) => j.id));
    expect(await run(store.conn, (q) => q.select().from(meetings))).toEqual([]);
    expect(existsSync(join(dataDir, "meetings", id))).toBe(false);
    expect(truncations).toBe(1);
    await expect(app.get(api, id)).rejects.toMatchObject({ code: "not_found" });
  });
});

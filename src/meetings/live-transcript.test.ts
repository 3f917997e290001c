// The live transcript's job kind and use cases over a real database (both dialects) and storage:
// one live job per draft at a time, no processing slot held, never an API job kind, the next
// step queued only when audio arrived meanwhile, nothing for a redacted meeting, and the file gone
// once the draft is finished.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { addUser } from "../auth/user-store.ts";
import { run, withTx } from "../db/conn.ts";
import { registerJobKinds } from "../jobs/kind.ts";
import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { jobSchemas } from "../jobs/schema.ts";
import { assertSlotFree } from "../jobs/slot-store.ts";
import { loadJob, updateJob } from "../jobs/store.ts";
import { jobs } from "../jobs/table.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { LIVE_TRANSCRIPT, liveTailName } from "../storage/paths.ts";
import type { LiveTranscriptFile } from "../worker/protocol.ts";
import { endLiveTranscript, hearGatheringPart, hearNewPart, liveTranscription, liveTranscriptionJob, liveTranscriptOf } from "./live-transcript.ts";
import { queueLiveJob } from "./live-transcript-store.ts";
import { meetingProcessingJob } from "./processing-job.ts";
import { findMeeting } from "./processing-store.ts";
import { draftParts, meetings } from "./table.ts";

let database: TempDatabase;
const dir = mkdtempSync(join(tmpdir(), "verbatim-live-kind-"));
const storage = localDiskStorage(dir);
const woken: number[] = [];
const deps = () => ({ conn: database.conn, storage, clock: { now: () => Date.now() }, jobQueue: JOBS_TABLE_QUEUE, scheduler: { wake: () => void woken.push(1) } });
const kind = liveTranscription({ storage, jobQueue: JOBS_TABLE_QUEUE });
let userId = "";

async function draft(options: { redaction?: boolean; parts?: number } = {}): Promise<string> {
  const id = crypto.randomUUID();
  const at = Date.now();
  await run(database.conn, async (q) => {
    await q.insert(meetings).values({
      id, userId, title: "Live", titleSource: "user", status: "draft", createdAt: at, updatedAt: at, recordedAt: at, transcribeOnly: false,
      requestedLanguage: "auto", source: "live_recording", recordingType: "meeting",
      redaction: options.redaction ? ({ entities: ["email"], audio: false } as never) : null,
    });
    for (let i = 0; i < (options.parts ?? 2); i++) await q.insert(draftParts).values({ meetingId: id, partIndex: i, bytes: 300_000, sha256: "x", receivedAt: at });
  });
  return id;
}
const row = async (id: string) => (await findMeeting(database.conn, id))!;
const liveJobs = (id: string) => run(database.conn, async (q) => (await q.select().from(jobs).where(eq(jobs.meetingId, id))).filter((j) => j.kind === liveTranscriptionJob.kind));
const writeLive = (id: string, heardBytes: number) => {
  const file: LiveTranscriptFile = { heardBytes, heardUntil: 8, committedEnd: 7, skippedSeconds: 0, segments: [{ start: 0, end: 7, text: "hello there" }] };
  return storage.put(id, LIVE_TRANSCRIPT, JSON.stringify(file), "t");
};

beforeAll(async () => {
  database = tempDatabase("live");
  userId = (await addUser(database.conn, { email: "live@example.com", name: null, plan: "free" })).id;
});
afterAll(async () => {
  await database.remove();
  rmSync(dir, { recursive: true, force: true });
});

test("a part queues one live job at a time, which holds no processing slot and is no API job kind", async () => {
  const id = await draft();
  await hearNewPart(deps(), await row(id));
  await hearNewPart(deps(), await row(id));
  expect(await liveJobs(id)).toHaveLength(1);
  expect(woken).toHaveLength(1);
  expect((await liveJobs(id))[0]).toMatchObject({ status: "queued", channel: "webapp", nextStep: "live" });
  // The free plan's one slot is still free.
  await withTx(database.conn, (tx) => assertSlotFree(tx, userId, "free", { free: 1 }));
  registerJobKinds([meetingProcessingJob, liveTranscriptionJob]);
  expect(jobSchemas().jobSchema.shape.kind.options).not.toContain(liveTranscriptionJob.kind);
  expect(jobSchemas().jobSchema.shape.kind.options).toContain(meetingProcessingJob.kind);
});

test("a step hears the parts without a gap; when it completes, the next is queued only if audio arrived meanwhile", async () => {
  const id = await draft({ parts: 3 });
  const jobId = (await queueLiveJob(database.conn, JOBS_TABLE_QUEUE, await row(id), Date.now()))!;
  const job = (await loadJob(database.conn, jobId))!;
  expect(await kind.stepInput(database.conn, job, "live", "run_1")).toMatchObject({ kind: "live_transcription", parts: 3, meetingId: id, language: null });
  expect(await kind.stepAfter(database.conn, job, "live")).toBeNull();
  // Heard all of it: the job ends there.
  await writeLive(id, 900_000);
  await withTx(database.conn, async (tx) => {
    await updateJob(tx, jobId, { status: "completed" });
    await kind.onCompleted(tx, job, Date.now());
  });
  expect((await liveJobs(id)).map((j) => j.status)).toEqual(["completed"]);
  // The page sent the part still gathering: more to hear; the ended job goes when the next is queued.
  await hearGatheringPart(deps(), await row(id), 3, new Uint8Array(1000));
  expect((await storage.list(id, "live-tail")).length).toBe(1);
  expect((await liveJobs(id)).map((j) => j.status)).toEqual(["queued"]);
  // A gathering part that is not the next one (already received, or past a gap) is not kept.
  await hearGatheringPart(deps(), await row(id), 1, new Uint8Array(1000));
  await hearGatheringPart(deps(), await row(id), 7, new Uint8Array(1000));
  expect(await storage.list(id, "live-tail")).toEqual([liveTailName(3)]);
  // Audio arrived while a step ran: completing it queues the next, behind the jobs waiting.
  const second = (await liveJobs(id))[0]!;
  await withTx(database.conn, async (tx) => {
    await updateJob(tx, second.id, { status: "completed" });
    await kind.onCompleted(tx, second, Date.now());
  });
  expect((await liveJobs(id)).map((j) => j.status).sort()).toEqual(["completed", "queued"]);
});

test("the owner reads the provisional text from a segment on; finished, it is gone and a step hears nothing", async () => {
  const id = await draft();
  await writeLive(id, 10);
  expect(await liveTranscriptOf(storage, await row(id), 0)).toMatchObject({ live: true, enabled: true, after: 0, total: 1, segments: [{ text: "hello there" }], heardSeconds: 8 });
  expect((await liveTranscriptOf(storage, await row(id), 5)).segments).toEqual([]);
  const jobId = (await queueLiveJob(database.conn, JOBS_TABLE_QUEUE, await row(id), Date.now()))!;
  // One running, one that ended: finishing removes the one that ended; the running one ends on its own.
  await withTx(database.conn, (tx) => updateJob(tx, jobId, { status: "processing" }));
  await run(database.conn, (q) => q.update(meetings).set({ status: "queued" }).where(eq(meetings.id, id)));
  await endLiveTranscript(deps(), id);
  expect(await storage.get(id, LIVE_TRANSCRIPT)).toBeNull();
  expect(await liveTranscriptOf(storage, await row(id), 0)).toMatchObject({ live: false, segments: [] });
  expect((await liveJobs(id)).map((j) => j.id)).toEqual([jobId]);
  const job = (await loadJob(database.conn, jobId))!;
  expect(await kind.stepInput(database.conn, job, "live", "run_2")).toMatchObject({ parts: -1 });
  // A step that was running when it was finished: its file is removed as it settles.
  await writeLive(id, 10);
  await withTx(database.conn, (tx) => kind.onStepDone(tx, job, { step: "live", heardBytes: 10, segments: 1, skippedSeconds: 0 }, Date.now()));
  expect(await storage.get(id, LIVE_TRANSCRIPT)).toBeNull();
});

test("finishing a draft removes its live jobs that never started", async () => {
  const id = await draft();
  await hearNewPart(deps(), await row(id));
  expect(await liveJobs(id)).toHaveLength(1);
  await endLiveTranscript(deps(), id);
  expect(await liveJobs(id)).toHaveLength(0);
});

test("a meeting that asked for redaction gets no live transcript: no job, no file", async () => {
  const id = await draft({ redaction: true });
  await hearNewPart(deps(), await row(id));
  await hearGatheringPart(deps(), await row(id), 2, new Uint8Array(1000));
  expect(await liveJobs(id)).toHaveLength(0);
  expect(await storage.list(id)).toEqual([]);
  expect(await liveTranscriptOf(storage, await row(id), 0)).toMatchObject({ enabled: false, segments: [] });
});

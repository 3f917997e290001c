// Meeting processing over real HTTP: stages and progress, events, cancel, crash and restart
// recovery, worker crashes, stage timeouts and broken engine modules (SPEC 3 and 6).
// Engines are the test doubles (test/doubles/engines.ts), steered by TEST_ENGINE_BEHAVIOR.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { run, type DbConn } from "../../src/db/conn.ts";
import { rows } from "../../src/db/sql.ts";
import { API_VERSION } from "../../src/lib/version.ts";
import { eventually as until } from "../helpers/processes.ts";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";
import { onPostgres } from "../support/postgres.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const BASE_ARGS = ["--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=50"];
const ARGS = [...BASE_ARGS, "--engines", "test/doubles/engines.ts"];
/** Every server (and so every worker, which inherits its environment) of this file carries it. */
const MARK = `jobs-processing-${process.pid}-${Date.now()}`;
const scratch = mkdtempSync(join(tmpdir(), "verbatim-jobs-processing-"));
const live = new Set<TestServer>();

interface Booted {
  server: TestServer;
  /** The server's database, to read the events it wrote. */
  conn: DbConn;
  key: string;
  userId: string;
}

async function boot(options: { env?: Record<string, string>; args?: string[]; dataDir?: string; newUser?: boolean } = {}): Promise<Booted> {
  const server = await startServer({
    args: options.args ?? ARGS,
    env: { VERBATIM_TEST_MARK: MARK, TEST_ENGINE_BEHAVIOR: "", ...options.env },
    dataDir: options.dataDir,
  });
  live.add(server);
  const email = `user-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const key = options.newUser === false ? "" : await createUserWithKey(server, email);
  const conn = server.conn();
  const userId = options.newUser === false ? "" : (await getUserByEmail(conn, email))!.id;
  return { server, conn, key, userId };
}

async function shutdown(server: TestServer): Promise<void> {
  if (!live.delete(server)) return;
  await server.stop();
}

async function upload(b: Booted, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting-fr-2spk.wav");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await b.server.api("/api/v1/meetings", { method: "POST", key: b.key, body: form });
  const body = (await response.json()) as any;
  expect(response.status).toBe(202);
  expect(body.status).toBe("queued");
  expect(body.job).toMatchObject({ object: "job", kind: "meeting_processing", status: "queued", stage: "queued", progress: 0 });
  return { meetingId: body.id as string, jobId: body.job.id as string, body };
}

async function getJob(b: Booted, jobId: string): Promise<any> {
  const response = await b.server.api(`/api/v1/jobs/${jobId}`, { key: b.key });
  expect(response.status).toBe(200);
  return response.json();
}

const FINAL = new Set(["completed", "failed", "canceled"]);

/** Polls the job until it ends, keeping every answer; `onPoll` runs after each one. */
async function followJob(b: Booted, jobId: string, options: { timeoutMs?: number; onPoll?: (job: any) => Promise<void> | void } = {}) {
  const polls: any[] = [];
  const job = await until(
    `job ${jobId} to end`,
    async () => {
      const job = await getJob(b, jobId);
      polls.push(job);
      await options.onPoll?.(job);
      return FINAL.has(job.status) ? job : undefined;
    },
    options.timeoutMs ?? 25_000,
    80,
  );
  return { job, polls };
}

/** Calls GET /v1/me every 100 ms until stopped; answers the statuses seen. */
function keepAsking(b: Booted) {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const response = await b.server.api("/api/v1/me", { key: b.key, signal: AbortSignal.timeout(3000) });
        statuses.push(response.status);
        await response.arrayBuffer();
      } catch {
        statuses.push(-1);
      }
      const elapsed = Date.now() - started;
      await Bun.sleep(Math.max(0, 100 - elapsed));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}

/** The account's events in the order they were written, envelopes parsed. */
async function eventsOf(b: Booted, jobId?: string): Promise<{ type: string; apiVersion: string; envelope: any }[]> {
  // Events written in one transaction share their created_at. SQLite keeps their insertion order
  // in rowid; PostgreSQL rows have none, so there ties are broken by the job's lifecycle (SPEC:
  // events are ordered by `created` and the job's status), transcription.* before processing.*.
  const order = onPostgres ? sql`created_at, CASE WHEN type LIKE 'transcription.%' THEN 0 ELSE 1 END` : sql`created_at, rowid`;
  const found = await run(b.conn, (q) =>
    rows<{ type: string; apiVersion: string; payload: string }>(
      q,
      sql`SELECT type, api_version AS "apiVersion", payload FROM events WHERE user_id = ${b.userId} ORDER BY ${order}`,
    ),
  );
  return found
    .map((r) => ({ type: r.type, apiVersion: r.apiVersion, envelope: JSON.parse(r.payload) }))
    .filter((e) => !jobId || e.envelope.data?.object?.id === jobId);
}

function expectEnvelope(event: { type: string; apiVersion: string; envelope: any }, jobId: string, meetingId: string) {
  const { envelope } = event;
  expect(envelope.id).toMatch(/^evt_\w+$/);
  expect(envelope).toMatchObject({ object: "event", type: event.type, api_version: API_VERSION, livemode: true });
  expect(API_VERSION).toBe("2026-10-01");
  expect(event.apiVersion).toBe("2026-10-01");
  expect(Number.isNaN(Date.parse(envelope.created))).toBe(false);
  expect(envelope.data.object).toMatchObject({ id: jobId, object: "job", kind: "meeting_processing", meeting_id: meetingId });
  expect(envelope.data.object.meeting).toMatchObject({ id: meetingId });
}

/** The state letter of a process from /proc, or null once it is gone (a zombie counts as gone). */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X" ? null : state;
  } catch {
    return null;
  }
}

const alive = (pid: number) => processState(pid) !== null;

/** Worker processes the server started (its children running `src/main.ts worker`). */
function workerPidsOf(server: TestServer): number[] {
  const ps = Bun.spawnSync(["ps", "-o", "pid=,args=", "--ppid", String(server.process.pid)]);
  return ps.stdout
    .toString()
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => !!m && /src\/main\.ts worker\b/.test(m[2]!))
    .map((m) => Number(m[1]))
    .filter(alive);
}

/** Every live process started by this file's servers, found by the marker in its environment. */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "latin1").includes(`VERBATIM_TEST_MARK=${MARK}`) && alive(Number(name))) {
        found.push(Number(name));
      }
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** The positions of the stages seen must follow SPEC 3's order. */
const STAGE_ORDER = ["queued", "downloading", "transcribing", "summarizing", "done"];
function expectStagesInOrder(stages: string[]) {
  const ranks = stages.map((s) => STAGE_ORDER.indexOf(s));
  expect(ranks.every((r) => r >= 0)).toBe(true);
  for (let i = 1; i < ranks.length; i++) expect(ranks[i]!).toBeGreaterThanOrEqual(ranks[i - 1]!);
}

function expectNonDecreasing(values: number[]) {
  for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
}

afterAll(async () => {
  for (const server of [...live]) await shutdown(server).catch(() => {});
  // Last resort, so a failing test never leaves workers running: only this file's processes.
  for (const pid of markedProcesses()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe("a processing that succeeds (transcribe and summarize slowed down)", () => {
  let b: Booted;
  const env = { TEST_ENGINE_BEHAVIOR: "transcribe:slow=3000;summarize:slow=1200" };

  test("queued → processing through the stages to completed, progress never going back", async () => {
    b = await boot({ env });
    const created = await upload(b, { metadata: JSON.stringify({ case: "A-1" }), title: "Weekly sync" });
    expect(created.body.job.metadata).toEqual({ case: "A-1" });
    expect(created.body.job.started_at).toBeNull();

    let listedWhileRunning = false;
    let transcriptDuringSummarizing: number | undefined;
    let summaryDuringSummarizing: number | undefined;
    const { job, polls } = await followJob(b, created.jobId, {
      async onPoll(job) {
        if (job.status === "processing" && !listedWhileRunning) {
          const page = (await (await b.server.api("/api/v1/jobs?status=processing", { key: b.key })).json()) as any;
          expect(page.data.map((j: any) => j.id)).toContain(created.jobId);
          expect(page.data.every((j: any) => j.status === "processing")).toBe(true);
          listedWhileRunning = true;
        }
        if (job.stage === "summarizing" && transcriptDuringSummarizing === undefined) {
          // SPEC 3: on entering summarizing the transcript is readable; the report is not yet.
          const transcript = await b.server.api(`/api/v1/meetings/${created.meetingId}/transcript`, { key: b.key });
          transcriptDuringSummarizing = transcript.status;
          await transcript.arrayBuffer();
          const summary = await b.server.api(`/api/v1/meetings/${created.meetingId}/summary`, { key: b.key });
          summaryDuringSummarizing = summary.status;
          await summary.arrayBuffer();
        }
      },
    });

    expect(job).toMatchObject({ id: created.jobId, status: "completed", stage: "done", progress: 1, error: null, metadata: { case: "A-1" } });
    const statuses = polls.map((p) => p.status);
    expect(statuses).toContain("processing");
    // Statuses only move forward: (queued →) processing → completed.
    const statusRank = statuses.map((s) => ["queued", "processing", "completed"].indexOf(s));
    expect(statusRank.every((r) => r >= 0)).toBe(true);
    expectNonDecreasing(statusRank);

    const stages = polls.map((p) => p.stage);
    expectStagesInOrder(stages);
    expect(stages).toContain("transcribing");
    expect(stages).toContain("summarizing");
    expect(stages).not.toContain("downloading"); // an upload has nothing to download
    expect(stages.at(-1)).toBe("done");

    const progress = polls.map((p) => p.progress as number);
    expectNonDecreasing(progress);
    // Progress moves within the slow transcription, not only between steps.
    expect(new Set(progress.filter((p) => p > 0 && p < 1)).size).toBeGreaterThan(3);
    expect(progress.at(-1)).toBe(1);

    expect(listedWhileRunning).toBe(true);
    expect(transcriptDuringSummarizing).toBe(200);
    expect(summaryDuringSummarizing).toBe(409);

    expect(job.started_at).toBeString();
    expect(job.finished_at).toBeString();
    expect(Date.parse(job.started_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at) + 3000);
    for (const p of polls.filter((p) => p.status === "processing")) expect(p.started_at).toBe(job.started_at);

    const meeting = (await (await b.server.api(`/api/v1/meetings/${created.meetingId}`, { key: b.key })).json()) as any;
    expect(meeting.status).toBe("completed");
    expect(meeting.job).toMatchObject({ id: created.jobId, status: "completed" });
    expect((await b.server.api(`/api/v1/meetings/${created.meetingId}/summary`, { key: b.key })).status).toBe(200);

    // GET /v1/jobs?status=processing shows it while it runs and not after.
    const processing = (await (await b.server.api("/api/v1/jobs?status=processing", { key: b.key })).json()) as any;
    expect(processing.data.map((j: any) => j.id)).not.toContain(created.jobId);
    const completed = (await (await b.server.api("/api/v1/jobs?status=completed", { key: b.key })).json()) as any;
    expect(completed.data.map((j: any) => j.id)).toContain(created.jobId);

    // Events: transcription.completed (entering summarizing), then processing.completed.
    const events = await eventsOf(b, created.jobId);
    expect(events.map((e) => e.type)).toEqual(["transcription.completed", "processing.completed"]);
    for (const event of events) {
      expectEnvelope(event, created.jobId, created.meetingId);
      expect(event.envelope.data.object.metadata).toEqual({ case: "A-1" });
    }
    expect(events[0]!.envelope.data.object).toMatchObject({ status: "processing", stage: "summarizing" });
    expect(events[1]!.envelope.data.object).toMatchObject({ status: "completed", stage: "done", progress: 1 });
    expect(events[1]!.envelope.data.object.meeting).toMatchObject({ status: "completed", title: "Weekly sync" });
    expect(new Set(events.map((e) => e.envelope.id)).size).toBe(2);
  }, 30_000);

  test("transcribe_only never reaches summarizing and completes after transcription", async () => {
    const created = await upload(b, { transcribe_only: "true", metadata: JSON.stringify({ case: "A-1" }) });
    expect(created.body.job.transcribe_only).toBe(true);
    const { job, polls } = await followJob(b, created.jobId);
    expect(job).toMatchObject({ status: "completed", stage: "done", progress: 1, transcribe_only: true, error: null });
    const stages = polls.map((p) => p.stage);
    expectStagesInOrder(stages);
    expect(stages).toContain("transcribing");
    expect(stages).not.toContain("summarizing"); // the summarize double is slow here: it would be seen
    expectNonDecreasing(polls.map((p) => p.progress));
    expect(job.started_at).toBeString();
    expect(job.finished_at).toBeString();

    expect((await b.server.api(`/api/v1/meetings/${created.meetingId}/transcript`, { key: b.key })).status).toBe(200);
    await expectProblem(await b.server.api(`/api/v1/meetings/${created.meetingId}/summary`, { key: b.key }), 409, "summary_not_ready");
    const meeting = (await (await b.server.api(`/api/v1/meetings/${created.meetingId}`, { key: b.key })).json()) as any;
    expect(meeting.status).toBe("completed");

    const events = await eventsOf(b, created.jobId);
    expect(events.map((e) => e.type)).toEqual(["transcription.completed", "processing.completed"]);
    for (const event of events) {
      expectEnvelope(event, created.jobId, created.meetingId);
      expect(event.envelope.data.object.metadata).toEqual({ case: "A-1" });
      expect(event.envelope.data.object.stage).not.toBe("summarizing");
    }
    expect(events[1]!.envelope.data.object).toMatchObject({ status: "completed", stage: "done" });
  }, 20_000);

  test("DELETE during a stage kills the worker and cancels the job; the next upload gets a fresh worker", async () => {
    const created = await upload(b, { metadata: JSON.stringify({ case: "A-1" }) });
    // Inside the transcribe step itself (its progress has moved past decoding).
    await until("the transcribe step to run", async () => {
      const job = await getJob(b, created.jobId);
      return job.stage === "transcribing" && job.progress > 0.1 && job.progress < 0.5;
    }, 15_000, 50);
    const workers = workerPidsOf(b.server);
    expect(workers).toHaveLength(1);
    const worker = workers[0]!;

    const deleted = await b.server.api(`/api/v1/meetings/${created.meetingId}`, { method: "DELETE", key: b.key });
    expect(deleted.status).toBe(204);
    const canceledAt = Date.now();
    await until(`worker ${worker} to be killed`, () => !alive(worker), 3000, 50);
    expect(Date.now() - canceledAt).toBeLessThan(3000);

    const job = await getJob(b, created.jobId);
    expect(job).toMatchObject({ id: created.jobId, status: "canceled" });
    expect(job.finished_at).toBeString();
    await expectProblem(await b.server.api(`/api/v1/meetings/${created.meetingId}`, { key: b.key }), 404, "not_found");
    expect(existsSync(join(b.server.dataDir, "meetings", created.meetingId))).toBe(false);
    const canceledList = (await (await b.server.api("/api/v1/jobs?status=canceled", { key: b.key })).json()) as any;
    expect(canceledList.data.map((j: any) => j.id)).toContain(created.jobId);
    const processingList = (await (await b.server.api("/api/v1/jobs?status=processing", { key: b.key })).json()) as any;
    expect(processingList.data.map((j: any) => j.id)).not.toContain(created.jobId);

    // A new upload runs on a fresh worker and completes, past the time the killed step would have taken.
    const next = await upload(b);
    const fresh = await until("a fresh worker", () => workerPidsOf(b.server).find((pid) => pid !== worker), 10_000, 50);
    expect(fresh).not.toBe(worker);
    const { job: nextJob } = await followJob(b, next.jobId);
    expect(nextJob.status).toBe("completed");
    expect(Date.now() - canceledAt).toBeGreaterThan(3000);

    expect(await eventsOf(b, created.jobId)).toEqual([]); // canceled during transcription: no event, then or later
    expect((await eventsOf(b, next.jobId)).map((e) => e.type)).toEqual(["transcription.completed", "processing.completed"]);
    expect((await getJob(b, created.jobId)).status).toBe("canceled");
    await shutdown(b.server);
  }, 30_000);
});

describe("failures reported as events", () => {
  test("a failing summarize fails the job and meeting after transcription.completed", async () => {
    const b = await boot({ env: { TEST_ENGINE_BEHAVIOR: "summarize:fail" } });
    try {
      const created = await upload(b, { metadata: JSON.stringify({ case: "A-1" }) });
      const { job } = await followJob(b, created.jobId);
      expect(job).toMatchObject({ status: "failed", error: { code: "double_failure" } });
      expect(job.error.message).toBeString();
      expect(job.error.message.length).toBeGreaterThan(0);
      expect(job.finished_at).toBeString();
      const meeting = (await (await b.server.api(`/api/v1/meetings/${created.meetingId}`, { key: b.key })).json()) as any;
      expect(meeting.status).toBe("failed");
      // The transcript was stored before the report failed.
      expect((await b.server.api(`/api/v1/meetings/${created.meetingId}/transcript`, { key: b.key })).status).toBe(200);

      const events = await eventsOf(b, created.jobId);
      expect(events.map((e) => e.type)).toEqual(["transcription.completed", "processing.failed"]);
      for (const event of events) {
        expectEnvelope(event, created.jobId, created.meetingId);
        expect(event.envelope.data.object.metadata).toEqual({ case: "A-1" });
      }
      expect(events[1]!.envelope.data.object).toMatchObject({ status: "failed", error: { code: "double_failure", message: job.error.message } });
    } finally {
      await shutdown(b.server);
    }
  }, 20_000);

  test("a failing transcribe emits transcription.failed and no transcription.completed", async () => {
    const b = await boot({ env: { TEST_ENGINE_BEHAVIOR: "transcribe:fail" } });
    try {
      const created = await upload(b, { metadata: JSON.stringify({ case: "A-1" }) });
      const { job } = await followJob(b, created.jobId);
      expect(job).toMatchObject({ status: "failed", error: { code: "double_failure" } });
      const meeting = (await (await b.server.api(`/api/v1/meetings/${created.meetingId}`, { key: b.key })).json()) as any;
      expect(meeting.status).toBe("failed");
      await expectProblem(
        await b.server.api(`/api/v1/meetings/${created.meetingId}/transcript`, { key: b.key }),
        409,
        "transcript_not_ready",
      );
      const events = await eventsOf(b, created.jobId);
      expect(events.map((e) => e.type)).toEqual(["transcription.failed"]);
      expectEnvelope(events[0]!, created.jobId, created.meetingId);
      expect(events[0]!.envelope.data.object).toMatchObject({ status: "failed", error: { code: "double_failure" }, metadata: { case: "A-1" } });
    } finally {
      await shutdown(b.server);
    }
  }, 20_000);
});

describe("recovery", () => {
  test("kill -9 of the service mid-stage: a restart on the same data resumes the same job", async () => {
    const dataDir = join(scratch, "restart");
    mkdirSync(dataDir);
    const first = await boot({ dataDir, env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=8000" } });
    let second: Booted | undefined;
    try {
      const created = await upload(first, { metadata: JSON.stringify({ case: "A-1" }) });
      const before = await until("the transcribe step to run", async () => {
        const job = await getJob(first, created.jobId);
        return job.stage === "transcribing" && job.progress > 0.1 ? job : undefined;
      }, 15_000, 50);
      const wav = join(dataDir, "meetings", created.meetingId, "audio.wav");
      expect(existsSync(wav)).toBe(true); // decoding was done before the kill
      const workers = workerPidsOf(first.server);
      expect(workers).toHaveLength(1);

      first.server.process.kill(9);
      for (const pid of workers) process.kill(pid, "SIGKILL");
      await first.server.process.exited;
      await until("the killed worker to be gone", () => workers.every((pid) => !alive(pid)), 3000, 50);
      await shutdown(first.server); // closes this test's database handle; the process is already gone

      // A partial upload the crash left behind is removed on start.
      mkdirSync(join(dataDir, "tmp"), { recursive: true });
      writeFileSync(join(dataDir, "tmp", "upl_partial.part"), "half an upload");

      second = await boot({ dataDir, newUser: false });
      second = { ...second, key: first.key, userId: first.userId };
      expect(existsSync(join(dataDir, "tmp", "upl_partial.part"))).toBe(false);
      const { job, polls } = await followJob(second, created.jobId);
      expect(job).toMatchObject({ id: created.jobId, status: "completed", stage: "done", progress: 1 });
      // Resumed, not restarted: it never went back to queued and kept its start time.
      expect(polls.map((p) => p.status)).not.toContain("queued");
      expect(polls.map((p) => p.stage)).not.toContain("queued");
      expect(job.started_at).toBe(before.started_at);
      expectNonDecreasing([before.progress, ...polls.map((p) => p.progress)]);
      expect(existsSync(wav)).toBe(true);
      expect(statSync(wav).size).toBeGreaterThan(44);

      const events = await eventsOf(second, created.jobId);
      expect(events.map((e) => e.type)).toEqual(["transcription.completed", "processing.completed"]);
      for (const event of events) expectEnvelope(event, created.jobId, created.meetingId);
      const meeting = (await (await second.server.api(`/api/v1/meetings/${created.meetingId}`, { key: second.key })).json()) as any;
      expect(meeting.status).toBe("completed");
    } finally {
      await shutdown(first.server);
      if (second) await shutdown(second.server);
    }
  }, 40_000);

  test("a worker crash is retried while the API keeps answering (diarize crashes once)", async () => {
    const marker = join(scratch, "diarize-crashed");
    const b = await boot({ env: { TEST_ENGINE_BEHAVIOR: `diarize:crash-once=${marker}` } });
    try {
      const probe = keepAsking(b);
      const created = await upload(b);
      const { job } = await followJob(b, created.jobId);
      const statuses = await probe.stop();
      expect(existsSync(marker)).toBe(true); // the first try did crash
      expect(job).toMatchObject({ status: "completed", stage: "done", error: null });
      expect(statuses.length).toBeGreaterThan(3);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(b.server.lines.some((l) => l.includes(`job ${created.jobId} step diarize failed (worker_crashed`) && l.includes("try 2 of 3"))).toBe(true);
      expect((await eventsOf(b, created.jobId)).map((e) => e.type)).toEqual(["transcription.completed", "processing.completed"]);
    } finally {
      await shutdown(b.server);
    }
  }, 20_000);

  test("a worker that always crashes fails the job after 3 tries (worker_crashed); later jobs complete", async () => {
    const dataDir = join(scratch, "crash");
    mkdirSync(dataDir);
    const b = await boot({ dataDir, env: { TEST_ENGINE_BEHAVIOR: "transcribe:crash" } });
    let after: Booted | undefined;
    try {
      const probe = keepAsking(b);
      const created = await upload(b);
      const { job } = await followJob(b, created.jobId);
      const statuses = await probe.stop();
      expect(job).toMatchObject({ status: "failed", error: { code: "worker_crashed" } });
      expect(job.error.message).toContain("exit code 70");
      expect(statuses.length).toBeGreaterThan(3);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const retries = b.server.lines.filter((l) => l.includes(`job ${created.jobId} step transcribe failed (worker_crashed`));
      expect(retries.map((l) => /try (\d) of 3/.exec(l)?.[1])).toEqual(["2", "3"]);
      expect((await eventsOf(b, created.jobId)).map((e) => e.type)).toEqual(["transcription.failed"]);
      expect(workerPidsOf(b.server)).toEqual([]); // every crashed worker was reaped, none left running
      expect((await b.server.api("/api/v1/me", { key: b.key })).status).toBe(200);
      await shutdown(b.server);

      after = await boot({ dataDir, newUser: false });
      after = { ...after, key: b.key, userId: b.userId };
      const next = await upload(after);
      const { job: nextJob } = await followJob(after, next.jobId);
      expect(nextJob.status).toBe("completed");
      // The failed job stays failed across the restart.
      expect(await getJob(after, created.jobId)).toMatchObject({ status: "failed", error: { code: "worker_crashed" } });
    } finally {
      await shutdown(b.server);
      if (after) await shutdown(after.server);
    }
  }, 40_000);

  test("DELETE while the retry's fresh worker is still starting kills that worker too", async () => {
    // Engines that take 2 s to load widen the window between spawning a worker and its first step.
    const slowLoading = join(scratch, "engines-slow-to-load.ts");
    writeFileSync(slowLoading, `await Bun.sleep(2000);\nexport { createEngines } from ${JSON.stringify(join(ROOT, "test/doubles/engines.ts"))};\n`);
    const marker = join(scratch, "transcribe-crashed");
    const b = await boot({
      args: [...BASE_ARGS, "--engines", slowLoading],
      env: { TEST_ENGINE_BEHAVIOR: `transcribe:crash-once=${marker};transcribe:slow=30000` },
    });
    try {
      const created = await upload(b);
      const first = await until("the first worker", () => workerPidsOf(b.server)[0], 10_000, 30);
      await until("the first transcribe try to crash", () => existsSync(marker), 15_000, 30);
      // The retry spawns a new worker that is still loading its engines: cancel now.
      const second = await until("the retry's worker", () => workerPidsOf(b.server).find((pid) => pid !== first), 5000, 20);
      const deleted = await b.server.api(`/api/v1/meetings/${created.meetingId}`, { method: "DELETE", key: b.key });
      expect(deleted.status).toBe(204);
      // Without the kill, it would load and run the 30 s transcription of a deleted meeting.
      await until(`worker ${second} to be killed`, () => !alive(second), 1500, 50);
      expect(await getJob(b, created.jobId)).toMatchObject({ status: "canceled" });
      await Bun.sleep(2500);
      expect(workerPidsOf(b.server)).toEqual([]);
      expect(await eventsOf(b, created.jobId)).toEqual([]);
      expect((await getJob(b, created.jobId)).status).toBe("canceled");
    } finally {
      await shutdown(b.server);
    }
  }, 30_000);

  test("a stage that hangs past --stage-timeout is killed, retried, then fails with stage_timeout", async () => {
    const b = await boot({ args: [...ARGS, "--stage-timeout", "2"], env: { TEST_ENGINE_BEHAVIOR: "transcribe:hang" } });
    try {
      const probe = keepAsking(b);
      const created = await upload(b);
      const seenWorkers = new Set<number>();
      const started = Date.now();
      const { job } = await followJob(b, created.jobId, {
        onPoll: () => workerPidsOf(b.server).forEach((pid) => seenWorkers.add(pid)),
      });
      const elapsed = Date.now() - started;
      const statuses = await probe.stop();
      expect(job).toMatchObject({ status: "failed", error: { code: "stage_timeout" } });
      expect(elapsed).toBeGreaterThanOrEqual(6000); // three tries of 2 s
      expect(statuses.every((s) => s === 200)).toBe(true);
      const retries = b.server.lines.filter((l) => l.includes(`job ${created.jobId} step transcribe failed (stage_timeout`));
      expect(retries).toHaveLength(2);
      // Each try ran in its own worker, each killed at its timeout.
      expect(seenWorkers.size).toBeGreaterThanOrEqual(2);
      await until("the hung workers to be killed", () => [...seenWorkers].every((pid) => !alive(pid)), 3000, 50);
      expect((await eventsOf(b, created.jobId)).map((e) => e.type)).toEqual(["transcription.failed"]);
    } finally {
      await shutdown(b.server);
    }
  }, 30_000);
});

describe("malformed engine modules", () => {
  const cases = [
    { name: "throws on import", source: `throw new Error("boom while importing the engines");\n`, message: "boom while importing the engines" },
    { name: "lacks createEngines", source: `export const somethingElse = 1;\n`, message: "createEngines" },
  ];
  for (const c of cases) {
    test(`a module that ${c.name} fails the job with engine_load_failed; the API keeps answering`, async () => {
      const path = join(scratch, `engines-${c.name.replace(/\W+/g, "-")}.ts`);
      writeFileSync(path, c.source);
      const b = await boot({ args: [...BASE_ARGS, "--engines", path] });
      try {
        const probe = keepAsking(b);
        const created = await upload(b);
        const { job } = await followJob(b, created.jobId);
        const statuses = await probe.stop();
        expect(job).toMatchObject({ status: "failed", error: { code: "engine_load_failed" } });
        // The module's own words (and its path) go to the server log; the client gets the code's sentence.
        expect(job.error.message).toBe("The processing engines could not be loaded.");
        expect(b.server.lines.some((l) => l.includes(`job ${created.jobId} failed: engine_load_failed`) && l.includes(c.message))).toBe(true);
        expect(statuses.every((s) => s === 200)).toBe(true);
        expect((await b.server.api("/api/v1/me", { key: b.key })).status).toBe(200);
        expect((await eventsOf(b, created.jobId)).map((e) => e.type)).toEqual(["transcription.failed"]);
      } finally {
        await shutdown(b.server);
      }
    }, 20_000);
  }
});

test("no server or worker process of this file is left running", async () => {
  expect(live.size).toBe(0);
  const left = await until("every worker to exit", () => (markedProcesses().length === 0 ? true : undefined), 5000, 100).catch(() => false);
  expect(markedProcesses()).toEqual([]);
  expect(left).toBe(true);
});

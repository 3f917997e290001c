// Workers keep their models loaded (issue 22, item 2): the service starts its worker as it starts,
// the worker loads its engines before any job arrives and then serves job after job in the same
// process; a worker that crashes is replaced by a fresh one, which loads its engines in turn.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, endedJob, ROOT, SHARED_FIXTURES, startServer, type TestServer } from "../helpers/server.ts";
import { alive, until } from "../helpers/processes.ts";

const FIXTURE = join(SHARED_FIXTURES, "meeting-fr-2spk.wav");
const TOKEN = "scrape-warm-81d2";
const scratch = mkdtempSync(join(tmpdir(), "verbatim-worker-warm-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The engine doubles, with a model load of 800 ms in preload(), as the built-in engines have.
const ENGINES = join(scratch, "engines-loading-models.ts");
writeFileSync(
  ENGINES,
  `import { createEngines as doubles } from ${JSON.stringify(join(ROOT, "test/doubles/engines.ts"))};
export function createEngines() {
  return { ...doubles(), async preload() { await Bun.sleep(800); return []; } };
}
`,
);

async function boot(behaviour = ""): Promise<{ server: TestServer; key: string }> {
  const server = await startServer({
    args: ["--engines", ENGINES, "--rate-limits", "pro=100000", "--parallel-slots", "pro=50", "--metrics-token", TOKEN],
    env: { TEST_ENGINE_BEHAVIOR: behaviour },
  });
  return { server, key: await createUserWithKey(server, "warm@firm.example") };
}

/** The pids of "worker <pid> ready in …" lines the service printed so far. */
function readyWorkers(server: TestServer): number[] {
  return server.lines.map((line) => /^worker (\d+) ready in \d+\.\d s \(engines loaded\)$/.exec(line)?.[1]).filter(Boolean).map(Number);
}

async function processMeeting(server: TestServer, key: string): Promise<{ status: string }> {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
  return endedJob(server, key, created.job.id, 30_000);
}

async function workersStarted(server: TestServer): Promise<number> {
  const text = await (await server.api("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith("verbatim_worker_processes_started_total "));
  return Number(line?.split(" ")[1]);
}

test("the worker is ready before the first upload, and that one process serves two jobs", async () => {
  const { server, key } = await boot();
  try {
    // No upload yet: the service started its worker, which loaded its engines.
    const [pid] = await until("the worker to be ready", () => readyWorkers(server).length === 1 && readyWorkers(server), 30_000);
    expect(alive(pid!)).toBe(true);
    expect(await workersStarted(server)).toBe(1);

    expect(await processMeeting(server, key)).toMatchObject({ status: "completed" });
    expect(await processMeeting(server, key)).toMatchObject({ status: "completed" });
    // Both jobs ran on it: no other worker was ever started, and it is still there.
    expect(await workersStarted(server)).toBe(1);
    expect(readyWorkers(server)).toEqual([pid!]);
    expect(alive(pid!)).toBe(true);
  } finally {
    await server.stop();
  }
}, 60_000);

test("a worker that crashes mid-step is replaced by a fresh one, which loads its engines and finishes the job", async () => {
  const marker = join(scratch, "diarize-crashed");
  const { server, key } = await boot(`diarize:crash-once=${marker}`);
  try {
    const [first] = await until("the worker to be ready", () => readyWorkers(server).length === 1 && readyWorkers(server), 30_000);
    expect(await processMeeting(server, key)).toMatchObject({ status: "completed" });
    const [, second] = readyWorkers(server);
    expect(second).toBeNumber();
    expect(second).not.toBe(first);
    expect(alive(first!)).toBe(false);
    expect(await workersStarted(server)).toBe(2);
  } finally {
    await server.stop();
  }
}, 60_000);

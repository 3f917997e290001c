// GET /metrics over real HTTP (issue 13, operations): the bearer token, request counts by route
// pattern (never by raw path), step durations, jobs, worker processes and webhook outcomes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createUserWithKey, endedJob, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { onPostgres } from "../support/postgres.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const TOKEN = "scrape-3f9c2a7e";
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000", "--metrics-token", TOKEN], env: { TEST_ENGINE_BEHAVIOR: "" } });
  key = await createUserWithKey(server, "ops@firm.example");
});
afterAll(() => server.stop());

async function scrape(): Promise<string> {
  const response = await server.api("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The value of one series, or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test("without the metrics token, or with an API key instead, 401", async () => {
  await expectProblem(await server.api("/metrics"), 401, "unauthorized");
  await expectProblem(await server.api("/metrics", { key }), 401, "unauthorized");
});

test("requests are counted by route pattern and status, with latency; a meeting's steps, jobs and workers show", async () => {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "m.wav");
  const meeting = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
  expect((await endedJob(server, key, meeting.job.id, 15_000)).status).toBe("completed");
  await server.api(`/api/v1/meetings/${meeting.id}`, { key });
  await server.api(`/api/v1/meetings/${crypto.randomUUID()}`, { key });
  await server.api("/api/v1/nowhere", { key });

  const text = await scrape();
  expect(value(text, 'verbatim_http_requests_total{method="GET",route="/api/v1/meetings/:meeting_id",status="200"}')).toBe(1);
  expect(value(text, 'verbatim_http_requests_total{method="GET",route="/api/v1/meetings/:meeting_id",status="404"}')).toBe(1);
  expect(value(text, 'verbatim_http_requests_total{method="POST",route="/api/v1/meetings",status="202"}')).toBe(1);
  expect(value(text, 'verbatim_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
  expect(value(text, 'verbatim_http_requests_total{method="GET",route="/api/v1/jobs/:job_id",status="200"}')).toBeGreaterThanOrEqual(1);
  expect(text).not.toContain(meeting.id); // ids never become labels
  expect(value(text, 'verbatim_http_request_duration_seconds_count{method="POST",route="/api/v1/meetings"}')).toBe(1);
  for (const step of ["decode", "transcribe", "diarize", "summarize"]) {
    expect(value(text, `verbatim_job_step_duration_seconds_count{kind="meeting_processing",step="${step}",outcome="done"}`)).toBe(1);
  }
  expect(value(text, 'verbatim_jobs{kind="meeting_processing",status="queued"}')).toBe(0);
  expect(value(text, 'verbatim_job_oldest_queued_seconds{kind="meeting_processing"}')).toBe(0);
  // This server is the one worker node, idle now that the meeting is done.
  expect(text).toMatch(/^verbatim_node_jobs_running\{node="node_\w+",hostname="[^"]+"\} 0$/m);
  // On PostgreSQL pg-boss's message was settled too; on SQLite there is no such queue.
  if (onPostgres) expect(value(text, 'verbatim_job_queue_messages{kind="meeting_processing",state="queued"}')).toBe(0);
  else expect(text).not.toContain("verbatim_job_queue_messages");
  expect(value(text, "verbatim_worker_processes_started_total")).toBeGreaterThanOrEqual(1);
  expect(text).toMatch(/^verbatim_worker_resident_memory_bytes\{pid="\d+"\} [1-9]\d+$/m);
  expect(value(text, "verbatim_webhook_deliveries_due")).toBe(0);
  expect(text).toContain("verbatim_process_resident_memory_bytes");
});

test("wrong metrics tokens are rate-limited per client address like any credential: 429 with Retry-After, even for the right token, until the window has room", async () => {
  // Its own server: this test uses up 127.0.0.1's failures, which the other tests scrape from.
  const guarded = await startServer({ args: ["--metrics-token", TOKEN, "--trusted-proxy", "127.0.0.1"] });
  try {
    const scrape = (token: string, client = "198.51.100.5") =>
      guarded.api("/metrics", { headers: { Authorization: `Bearer ${token}`, "x-forwarded-for": client } });
    for (let i = 0; i < 10; i++) await expectProblem(await scrape(`guess-${i}`), 401, "unauthorized");
    const refused = await scrape("guess-10");
    await expectProblem(refused.clone(), 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    await expectProblem(await scrape(TOKEN), 429, "rate_limited");
    // The scraper, from its own address, is not refused for the guesser's failures.
    expect((await scrape(TOKEN, "192.0.2.200")).status).toBe(200);
  } finally {
    await guarded.stop();
  }
});

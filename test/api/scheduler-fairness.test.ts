// The scheduler serves accounts round-robin (issue 8, item 10): an account with many queued
// jobs cannot hold the only worker while another account's job waits. One worker, engine
// doubles that take a moment per step, real server over HTTP.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createUserWithKey, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--workers", "1", "--parallel-slots", "pro=50", "--rate-limits", "pro=100000"],
    env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=300" },
  });
});
afterAll(async () => {
  await server.stop();
});

async function upload(key: string, title: string): Promise<string> {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", title);
  form.append("transcribe_only", "true");
  const response = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job: { id: string } }).job.id;
}

async function job(key: string, id: string): Promise<{ status: string; started_at: string | null }> {
  return (await (await server.api(`/api/v1/jobs/${id}`, { key })).json()) as never;
}

test("one account's queued jobs do not keep another account's job waiting", async () => {
  const busy = await createUserWithKey(server, "busy@example.com");
  const quiet = await createUserWithKey(server, "quiet@example.com");
  const busyJobs: string[] = [];
  for (let i = 0; i < 5; i++) busyJobs.push(await upload(busy, `busy ${i}`));
  const quietJob = await upload(quiet, "quiet");

  const deadline = Date.now() + 60_000;
  while ((await job(quiet, quietJob)).status !== "completed") {
    if (Date.now() > deadline) throw new Error("the quiet account's job never completed");
    await Bun.sleep(100);
  }
  const started = await Promise.all(busyJobs.map((id) => job(busy, id)));
  const quietStarted = Date.parse((await job(quiet, quietJob)).started_at!);
  // First come, first served would run all five busy jobs first; round-robin runs the quiet
  // account's job right after the busy job in progress (or the next one) ends.
  const busyBefore = started.filter((j) => j.started_at !== null && Date.parse(j.started_at) < quietStarted).length;
  expect(busyBefore).toBeLessThanOrEqual(2);
  expect(started.filter((j) => j.status !== "completed").length).toBeGreaterThanOrEqual(2);
}, 90_000);

// Usage metering over real HTTP (SPEC 2 Usage and Ledger, SPEC 4 Usage, SPEC 7's 402s, SPEC 8;
// issue 12): the ledger lines of processed meetings and documents, job.usage, GET /v1/usage and
// /v1/usage/ledger, 402 before anything is created, on-demand billing and its cap through the
// admin commands, threshold events, replays never billed twice, deleted meetings keeping their
// lines, and 50 concurrent admissions against an almost empty wallet; reservations of what jobs in
// flight are expected to cost (issue 20): two one-hour recordings against a wallet for one, a
// failure or a deletion releasing, a kill -9 and restart keeping them. The month's lifecycle with
// the clock injected is in src/usage/meter.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { queryRow, queryRows } from "../helpers/query.ts";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
setDefaultTimeout(60_000);
const FINAL = new Set(["completed", "failed", "canceled"]);
// One minor unit per 10 s of audio, and per 100 tokens: the doubles' meeting costs 3 + 6. Its
// expected cost, reserved at admission: 3 for 28.6 s of audio, and 28.6 × 4 + 600 tokens of report: 8.
const BILLING = ["--allowances", "free=30,standard=0,pro=20000", "--rates", "transcription_hour=360,report_mtok=10000,document_mtok=10000", "--admission-hold", "5", "--llm-estimate-tokens", "600"];
const EXPECTED_MEETING_COST = 11;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "free=100000,standard=100000,pro=100000", "--parallel-slots", "free=60,standard=60,pro=60", ...BILLING],
    // Documents take 4 s: long enough to see what they reserve while they are written.
    env: { TEST_ENGINE_BEHAVIOR: "generate:slow=4000" },
  });
});
afterAll(() => server.stop());

async function upload(key: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}, on = server): Promise<Response> {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "m.wav");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return on.api("/api/v1/meetings", { method: "POST", key, body: form, headers });
}

async function finished(key: string, jobId: string, on = server): Promise<any> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const job = (await (await on.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
    if (FINAL.has(job.status)) return job;
    await Bun.sleep(50);
  }
  throw new Error(`job ${jobId} did not end`);
}

async function processed(key: string, fields: Record<string, string> = {}): Promise<{ meeting: any; job: any }> {
  const response = await upload(key, fields);
  expect(response.status).toBe(202);
  const meeting = (await response.json()) as any;
  return { meeting, job: await finished(key, meeting.job.id) };
}

async function get(key: string, path: string): Promise<any> {
  const response = await server.api(path, { key });
  expect(response.status).toBe(200);
  return response.json();
}

describe("metering", () => {
  let key: string;
  beforeAll(async () => {
    key = await createUserWithKey(server, "finance@firm.example", "all", "free");
  });

  test("GET /v1/usage before any use: the plan's wallet, rates, thresholds; read:usage needed", async () => {
    const usage = await get(key, "/api/v1/usage");
    const period = new Date().toISOString().slice(0, 7);
    expect(usage).toMatchObject({
      object: "usage",
      period,
      currency: "EUR",
      plan: "free",
      wallet: { allowance: 30, credits: 0, used: 0, remaining: 30, reserved: 0 },
      on_demand: { enabled: false, spend_cap: null, used: 0, remaining: null, written_off: 0 },
      totals: { operations: 0, audio_seconds: 0, tokens: 0, cost: 0 },
      alert_thresholds_percent: [50, 80, 100],
      rates: { transcription_per_hour: 360, report_per_million_tokens: 10000, document_per_million_tokens: 10000 },
    });
    expect(usage.period_start).toBe(`${period}-01T00:00:00.000Z`);
    const noScope = await createUserWithKey(server, "noscope-usage@firm.example", "read:meetings");
    await expectProblem(await server.api("/api/v1/usage", { key: noScope }), 403, "insufficient_scope");
    await expectProblem(await server.api("/api/v1/usage/ledger?period=2026-13", { key }), 400, "validation_error");
  });

  test("a processed meeting: one transcription line and one report line, job.usage, the wallet debited", async () => {
    const { meeting, job } = await processed(key);
    expect(job.usage).toMatchObject({ audio_seconds: 29, models: ["double-whisper", "double-llm"], currency: "EUR", cost: 9 });
    expect(job.usage.ledger_line_ids).toHaveLength(2);
    const ledger = await get(key, "/api/v1/usage/ledger");
    const lines = ledger.data.filter((l: any) => l.meeting_id === meeting.id);
    expect(lines.map((l: any) => l.operation).sort()).toEqual(["report", "transcription"]);
    const transcription = lines.find((l: any) => l.operation === "transcription");
    expect(transcription).toMatchObject({ object: "ledger_line", job_id: job.id, quantities: { audio_seconds: 29 }, unit_rate: 360, unit: "per_hour_of_audio", cost: 3, paid: { wallet: 3, on_demand: 0, written_off: 0 }, payment: "wallet" });
    const report = lines.find((l: any) => l.operation === "report");
    expect(report.quantities.prompt_tokens + report.quantities.completion_tokens).toBe(600);
    expect(report).toMatchObject({ model: "double-llm", cost: 6 });
    expect(await get(key, "/api/v1/usage")).toMatchObject({ wallet: { used: 9, remaining: 21 }, totals: { operations: 2, audio_seconds: 29, cost: 9 } });
  });

  test("a replayed creation (same Idempotency-Key) is billed once", async () => {
    const before = (await get(key, "/api/v1/usage/ledger?limit=100")).data.length;
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = (await (await upload(key, {}, headers)).json()) as any;
    await finished(key, first.job.id);
    const replay = await upload(key, {}, headers);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    await Bun.sleep(300);
    expect((await get(key, "/api/v1/usage/ledger?limit=100")).data.length).toBe(before + 2);
  });

  test("crossing 50 % of the wallet emits usage.threshold_reached once; a deleted meeting keeps its lines", async () => {
    // 18 of 30 used after the two meetings above: 60 %.
    const events = await queryRows<{ payload: string }>(server, sql`SELECT payload FROM events WHERE type = 'usage.threshold_reached'`);
    const alerts = events.map((e) => JSON.parse(e.payload).data.object).filter((a) => a.kind === "wallet");
    expect(alerts.map((a) => a.threshold_percent)).toEqual([50]);
    expect(alerts[0]).toMatchObject({ object: "usage_alert", used: 18, limit: 30, currency: "EUR" });

    const ledger = await get(key, "/api/v1/usage/ledger?limit=100");
    const meetingId = ledger.data[0].meeting_id;
    expect((await server.api(`/api/v1/meetings/${meetingId}`, { method: "DELETE", key })).status).toBe(204);
    const after = await get(key, "/api/v1/usage/ledger?limit=100");
    expect(after.data.filter((l: any) => l.meeting_id === meetingId)).toHaveLength(2);
    expect(after.data).toHaveLength(ledger.data.length);
  });

  test("documents are metered too, on their own job", async () => {
    const pro = await createUserWithKey(server, "docs-usage@firm.example", "all", "pro");
    const { meeting } = await processed(pro);
    const queued = (await (await server.api(`/api/v1/meetings/${meeting.id}/documents`, { method: "POST", key: pro, json: { template_id: "tpl_minutes" } })).json()) as any;
    const job = await finished(pro, queued.id);
    expect(job.usage).toMatchObject({ models: ["double-llm"], prompt_tokens: 300, completion_tokens: 150, cost: 5 });
    const lines = (await get(pro, "/api/v1/usage/ledger")).data.filter((l: any) => l.operation === "document");
    expect(lines).toEqual([expect.objectContaining({ job_id: queued.id, meeting_id: meeting.id, cost: 5, unit: "per_million_tokens" })]);
  });
});

describe("documents asked for at creation", () => {
  test("are admitted with their meeting, and each reserves its expected cost while it is written", async () => {
    const pro = await createUserWithKey(server, "spawned@firm.example", "all", "pro");
    const { meeting, job } = await processed(pro, { document_templates: "tpl_minutes" });
    expect(job.status).toBe("completed");
    const [documentJobId] = job.document_job_ids as string[];
    // (report characters ÷ 3 + 600) tokens at 10,000 per million, never under the hold of 5.
    const report = (await get(pro, `/api/v1/meetings/${meeting.id}/summary`)).markdown as string;
    const expected = Math.max(5, Math.ceil(((Math.ceil(report.length / 3) + 600) * 10_000) / 1_000_000));
    expect((await get(pro, "/api/v1/usage")).wallet.reserved).toBe(expected);
    expect((await finished(pro, documentJobId!)).status).toBe("completed");
    expect((await get(pro, "/api/v1/usage")).wallet).toMatchObject({ used: 9 + 5, reserved: 0 });
  });
});

describe("402 before anything is created", () => {
  test("an empty wallet without on-demand: 402 insufficient_balance; with a spend cap (admin cap set) it is billed on demand until the cap, then 402 spend_cap_reached", async () => {
    const key = await createUserWithKey(server, "empty@firm.example", "all", "standard");
    await expectProblem(await upload(key), 402, "insufficient_balance");
    expect((await get(key, "/api/v1/meetings")).data).toEqual([]);

    const cap = await server.admin("cap", "set", "--email", "empty@firm.example", "--cap", "12", "--json");
    expect(cap.code).toBe(0);
    const { job } = await processed(key);
    expect(job.status).toBe("completed");
    const usage = await get(key, "/api/v1/usage");
    expect(usage).toMatchObject({ wallet: { allowance: 0, used: 0 }, on_demand: { enabled: true, spend_cap: 12, used: 9, remaining: 3 } });
    // 3 left, less than the next meeting's expected cost: it would overspend.
    await expectProblem(await upload(key), 402, "spend_cap_reached");
    const lines = (await get(key, "/api/v1/usage/ledger")).data;
    expect(lines.every((l: any) => l.payment === "on_demand")).toBe(true);
    const meetingId = lines[0].meeting_id;
    await expectProblem(await server.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } }), 402, "spend_cap_reached");

    // Credits from an administrator pay again.
    expect((await server.admin("credits", "grant", "--email", "empty@firm.example", "--amount", "100", "--note", "Q4 project")).code).toBe(0);
    expect(await get(key, "/api/v1/usage")).toMatchObject({ wallet: { credits: 100, remaining: 100 } });
    expect((await upload(key)).status).toBe(202);
  });

  test("admin plan set moves an account to another plan's allowance", async () => {
    const key = await createUserWithKey(server, "mover@firm.example", "all", "standard");
    await expectProblem(await upload(key), 402, "insufficient_balance");
    expect((await server.admin("plan", "set", "--email", "mover@firm.example", "--plan", "pro")).code).toBe(0);
    expect(await get(key, "/api/v1/usage")).toMatchObject({ plan: "pro", wallet: { allowance: 20000 } });
    expect((await upload(key)).status).toBe(202);
    const bad = await server.admin("cap", "set", "--email", "mover@firm.example", "--cap", "-3");
    expect(bad.code).toBe(2);
  });
});

describe("concurrent admissions", () => {
  test("50 uploads at once against a wallet of 25, each expected to cost 11: exactly 2 admitted, 48 refused, nothing overspent", async () => {
    const slow = await startServer({
      args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "free=100000", "--parallel-slots", "free=60", "--allowances", "free=25", "--rates", "transcription_hour=360,report_mtok=10000,document_mtok=10000", "--admission-hold", "5", "--llm-estimate-tokens", "600"],
      env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=4000" },
    });
    try {
      const key = await createUserWithKey(slow, "crowd@firm.example", "all", "free");
      const responses = await Promise.all(Array.from({ length: 50 }, () => upload(key, {}, {}, slow)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 202)).toHaveLength(Math.floor(25 / EXPECTED_MEETING_COST));
      expect(statuses.filter((s) => s === 402)).toHaveLength(50 - Math.floor(25 / EXPECTED_MEETING_COST));
      const accepted = await Promise.all(responses.filter((r) => r.status === 202).map(async (r) => ((await r.json()) as any).job.id));
      for (const jobId of accepted) await finished(key, jobId, slow);
      const totals = (await queryRow<{ wallet: number; cost: number; written_off: number }>(slow, sql`SELECT sum(paid_wallet) AS wallet, sum(cost) AS cost, sum(written_off) AS written_off FROM ledger_lines`))!;
      expect(totals.wallet).toBeLessThanOrEqual(25);
      expect(totals.cost).toBe(18); // 2 meetings of 9
      expect(totals.written_off).toBe(0);
    } finally {
      await slow.stop();
    }
  }, 120_000);
});

describe("reservations: what jobs in flight are expected to cost counts at once (issue 20)", () => {
  const tmp = mkdtempSync(join(tmpdir(), "verbatim-hour-"));
  const HOUR = join(tmp, "hour.flac");
  // 360 per hour of audio, 100 per million tokens: a one-hour recording is expected to cost
  // 360 + ceil((3600 × 4 + 600) × 100 / 1e6) = 362; the wallet of 400 pays for one, not two.
  // A free account's wallet of 100 pays for 16 minutes: an audio_url learns it is an hour only once decoded.
  const ARGS = ["--engines", "test/doubles/engines.ts", "--rate-limits", "standard=100000,free=100000", "--parallel-slots", "standard=5", "--allowances", "standard=400,free=100", "--egress-allow", "127.0.0.1", "--rates", "transcription_hour=360,report_mtok=100,document_mtok=100", "--admission-hold", "5", "--llm-estimate-tokens", "600"];
  let hours: TestServer;
  let files: ReturnType<typeof Bun.serve>;

  async function send(on: TestServer, key: string, path: string, name: string): Promise<Response> {
    const form = new FormData();
    form.append("file", Bun.file(path), name);
    return on.api("/api/v1/meetings", { method: "POST", key, body: form });
  }
  const usageOf = async (on: TestServer, key: string) => (await (await on.api("/api/v1/usage", { key })).json()) as any;

  beforeAll(async () => {
    // An hour of silence: FLAC holds it in under a megabyte, and the container says how long it is.
    const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "3600", "-c:a", "flac", HOUR]);
    expect(made.exitCode).toBe(0);
    files = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(Bun.file(HOUR)) });
    hours = await startServer({ args: ARGS, env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=5000;summarize:fail" } });
  });
  afterAll(async () => {
    await hours.stop();
    files.stop(true);
    rmSync(tmp, { recursive: true, force: true });
  });

  test("a wallet that pays for one hour admits one one-hour recording, not two at once (402); a deletion releases its reservation", async () => {
    const key = await createUserWithKey(hours, "hours@firm.example", "all", "standard");
    const first = await send(hours, key, HOUR, "first.flac");
    expect(first.status).toBe(202);
    const firstMeeting = (await first.json()) as any;
    expect((await usageOf(hours, key)).wallet).toMatchObject({ used: 0, remaining: 400, reserved: 362 });
    // The second hour would need 362 more: refused before anything is created, whatever the slots.
    await expectProblem(await send(hours, key, HOUR, "second.flac"), 402, "insufficient_balance");
    expect(((await (await hours.api("/api/v1/meetings", { key })).json()) as any).data).toHaveLength(1);

    // Deleting the first cancels its job and releases what it held: the second now fits.
    expect((await hours.api(`/api/v1/meetings/${firstMeeting.id}`, { method: "DELETE", key })).status).toBe(204);
    expect((await usageOf(hours, key)).wallet).toMatchObject({ used: 0, reserved: 0 });
    const second = await send(hours, key, HOUR, "second.flac");
    expect(second.status).toBe(202);
    expect((await hours.api(`/api/v1/meetings/${((await second.json()) as any).id}`, { method: "DELETE", key })).status).toBe(204);
    expect((await usageOf(hours, key)).wallet.reserved).toBe(0);
  }, 60_000);

  test("a job that fails releases what it did not use: the transcription it finished is debited, the rest freed", async () => {
    const key = await createUserWithKey(hours, "failing@firm.example", "all", "standard");
    const created = await upload(key, {}, {}, hours);
    expect(created.status).toBe(202);
    const meeting = (await created.json()) as any;
    // 3 for 28.6 s of audio and 1 for its report, under the admission hold of 5.
    expect((await usageOf(hours, key)).wallet.reserved).toBe(5);
    const job = await finished(key, meeting.job.id, hours);
    expect(job.status).toBe("failed");
    expect((await usageOf(hours, key)).wallet).toMatchObject({ used: 3, remaining: 397, reserved: 0 });
    expect(await queryRow(hours, sql`SELECT count(*) AS n FROM usage_reservations`)).toEqual({ n: 0 });
  }, 60_000);

  test("an audio_url is re-estimated once decoded: an hour the wallet cannot pay fails before anything is transcribed or debited", async () => {
    const key = await createUserWithKey(hours, "url-hour@firm.example", "all", "free");
    const created = await hours.api("/api/v1/meetings", { method: "POST", key, json: { audio_url: `http://127.0.0.1:${files.port}/hour.flac` } });
    expect(created.status).toBe(202);
    // Its length is unknown at admission: it holds the least reservation.
    expect((await usageOf(hours, key)).wallet.reserved).toBe(5);
    const job = await finished(key, ((await created.json()) as any).job.id, hours);
    expect(job).toMatchObject({ status: "failed", error: { code: "insufficient_balance" } });
    expect((await usageOf(hours, key)).wallet).toMatchObject({ used: 0, remaining: 100, reserved: 0 });
    expect(((await (await hours.api("/api/v1/usage/ledger", { key })).json()) as any).data).toEqual([]);
  }, 90_000);

  test("kill -9 mid-job and restart: the reservation still holds (the next recording is refused) and settles when the job completes", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "verbatim-crash-"));
    const args = ["--engines", "test/doubles/engines.ts", "--rate-limits", "standard=100000", "--parallel-slots", "standard=5", "--allowances", "standard=15", ...BILLING.slice(2)];
    const env = { TEST_ENGINE_BEHAVIOR: "transcribe:slow=10000" };
    let crashing = await startServer({ args, env, dataDir });
    try {
      const key = await createUserWithKey(crashing, "crash@firm.example", "all", "standard");
      const created = await upload(key, {}, {}, crashing);
      expect(created.status).toBe(202);
      const jobId = ((await created.json()) as any).job.id;
      expect((await usageOf(crashing, key)).wallet.reserved).toBe(EXPECTED_MEETING_COST);
      const deadline = Date.now() + 30_000;
      while (((await (await crashing.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any).stage !== "transcribing" && Date.now() < deadline) await Bun.sleep(50);
      await crashing.stop("SIGKILL");

      crashing = await startServer({ args, env, dataDir });
      // 15 - 11 held: another meeting expected to cost 11 is refused, before and after the crash alike.
      expect((await usageOf(crashing, key)).wallet).toMatchObject({ used: 0, reserved: EXPECTED_MEETING_COST });
      await expectProblem(await upload(key, {}, {}, crashing), 402, "insufficient_balance");
      const job = await finished(key, jobId, crashing);
      expect(job.status).toBe("completed");
      expect((await usageOf(crashing, key)).wallet).toMatchObject({ used: 9, remaining: 6, reserved: 0 });
    } finally {
      await crashing.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

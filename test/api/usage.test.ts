// Usage metering over real HTTP (SPEC 2 Usage and Ledger, SPEC 4 Usage, SPEC 7's 402s, SPEC 8;
// issue 12): the ledger lines of processed meetings and documents, job.usage, GET /v1/usage and
// /v1/usage/ledger, 402 before anything is created, on-demand billing and its cap through the
// admin commands, threshold events, replays never billed twice, deleted meetings keeping their
// lines, and 50 concurrent admissions against an almost empty wallet. The month's lifecycle with
// the clock injected is in src/usage/meter.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const FINAL = new Set(["completed", "failed", "canceled"]);
// One minor unit per 10 s of audio, and per 100 tokens: the doubles' meeting costs 3 + 6.
const BILLING = ["--allowances", "free=30,standard=0,pro=20000", "--rates", "transcription_hour=360,report_mtok=10000,document_mtok=10000", "--admission-hold", "5"];
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "free=100000,standard=100000,pro=100000", "--parallel-slots", "free=60,standard=60,pro=60", ...BILLING],
    env: { TEST_ENGINE_BEHAVIOR: "" },
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
  for (let i = 0; i < 600; i++) {
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
      wallet: { allowance: 30, credits: 0, used: 0, remaining: 30 },
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
    const events = server.db().$client.query("SELECT payload FROM events WHERE type = 'usage.threshold_reached'").all() as { payload: string }[];
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
    // 3 left, less than one hold of 5: the next request would overspend.
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
  test("50 uploads at once against a wallet of 25 with a hold of 5: exactly 5 admitted, 45 refused, nothing overspent", async () => {
    const slow = await startServer({
      args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "free=100000", "--parallel-slots", "free=60", "--allowances", "free=25", "--rates", "transcription_hour=360,report_mtok=10000,document_mtok=10000", "--admission-hold", "5"],
      env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=4000" },
    });
    try {
      const key = await createUserWithKey(slow, "crowd@firm.example", "all", "free");
      const responses = await Promise.all(Array.from({ length: 50 }, () => upload(key, {}, {}, slow)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 202)).toHaveLength(5);
      expect(statuses.filter((s) => s === 402)).toHaveLength(45);
      const accepted = await Promise.all(responses.filter((r) => r.status === 202).map(async (r) => ((await r.json()) as any).job.id));
      for (const jobId of accepted) await finished(key, jobId, slow);
      const totals = slow.db().$client.query("SELECT sum(paid_wallet) AS wallet, sum(cost) AS cost FROM ledger_lines").get() as { wallet: number; cost: number };
      expect(totals.wallet).toBeLessThanOrEqual(25);
      expect(totals.cost).toBe(45); // 5 meetings of 9
    } finally {
      await slow.stop();
    }
  }, 120_000);
});

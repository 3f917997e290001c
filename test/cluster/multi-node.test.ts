// The multi-node test of issue 22 (item 7): one PostgreSQL database, one shared --storage-dir, two
// API nodes and two worker nodes, all `serve` processes of this checkout. It shows that a meeting
// uploaded through one API node is processed on a worker and read through the other; that a worker
// killed mid-step leaves its job to the other worker, the step's result and its debit written
// once; that an API node killed mid-upload leaves the client's retry (same Idempotency-Key, other
// node) to create one meeting; that an account with one processing slot never has two jobs
// running; and that every webhook event reaches its receiver once per attempt. PostgreSQL run only:
// on SQLite one process owns the data dir, there is no cluster to start.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { verifySignature } from "../../scripts/webhook-receiver.ts";
import { PgConn } from "../../src/db/pg-conn.ts";
import { run } from "../../src/db/conn.ts";
import { rows } from "../../src/db/sql.ts";
import { BUN, BUN_FLAGS, ROOT, runCli, SHARED_FIXTURES } from "../helpers/server.ts";
import { eventually } from "../helpers/processes.ts";
import { spawnServer, type SpawnedServer } from "../helpers/spawn-server.ts";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../support/postgres.ts";
import { LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

/**
 * A job's claim lasts 60 s (jobs/claims-store.ts LEASE_MS): a dead worker's job is taken over after
 * it, by pg-boss's redelivery or the 30 s sweep of the jobs table. Waits are on states, with room
 * for a 2-core machine running four nodes, their workers and PostgreSQL at once.
 */
const TAKEOVER_MS = 150_000;
/** Seconds an Idempotency-Key held by a dead node's request is kept before a retry takes it over. */
const IDEMPOTENCY_LEASE_SECONDS = 3;

interface Node {
  role: "api" | "worker";
  dataDir: string;
  server: SpawnedServer;
  url: string;
  /** Its row in the nodes table (and the lease owner on the jobs it runs). */
  id: string;
}

const scratch = mkdtempSync(join(tmpdir(), "verbatim-cluster-"));
const storageDir = join(scratch, "storage");
let databaseUrl = "";
let conn: PgConn;
let receiver: Receiver;
let hookPath = "";
let hookSecret = "";
let adminKey = "";
let key = ""; // a pro account's: the meetings of tests 1-3 and the webhook endpoint
let freeKey = ""; // a free account's: one processing slot (test 4)
let wav = "";
const nodes: Record<"a" | "b" | "w1" | "w2", Node | undefined> = { a: undefined, b: undefined, w1: undefined, w2: undefined };

function common(): string[] {
  return [
    "--database-url", databaseUrl,
    "--database-pool-size", "4",
    "--storage-dir", storageDir,
    "--engines", "test/doubles/engines.ts",
    "--rate-limits", "free=100000,standard=100000,pro=100000,anonymous=100000",
    "--parallel-slots", "free=1,pro=50",
    "--egress-allow", "127.0.0.1",
    "--ca-file", LOOPBACK_CA_FILE,
    "--idempotency-lease", String(IDEMPOTENCY_LEASE_SECONDS),
  ];
}

/** Starts one node; a restart passes the dead node's data dir. */
async function startNode(role: "api" | "worker", dataDir = mkdtempSync(join(scratch, `${role}-`))): Promise<Node> {
  const server = await spawnServer({
    name: `${role} node`,
    command: [BUN, ...BUN_FLAGS, join(ROOT, "src/main.ts"), "serve", "--role", role, "--port", "0", "--data-dir", dataDir, ...(role === "worker" ? ["--workers", "1"] : []), ...common()],
    cwd: ROOT,
    // The transcribe step takes 3 s on every worker: long enough to see it run, and to kill its worker mid-step.
    env: { VERBATIM_LOG_REQUESTS: "false", VERBATIM_MODELS_PROFILE: "stand-in", VERBATIM_WORKER_ENV: "TEST_ENGINE_BEHAVIOR", TEST_ENGINE_BEHAVIOR: "transcribe:slow=3000" },
    ready: role === "worker" ? /^Verbatim worker node \S+ running \d+ worker\(s\); not listening$/ : undefined,
    timeoutMs: 60_000,
  });
  const bootstrap = server.stdout.map((l) => /^\s+(vb_live_\w+)$/.exec(l)?.[1]).find(Boolean);
  if (bootstrap) adminKey = bootstrap;
  const [self] = await q<{ id: string }>(sql`SELECT id FROM nodes WHERE pid = ${server.proc.pid} AND stopped_at IS NULL ORDER BY started_at DESC LIMIT 1`);
  return { role, dataDir, server, url: server.url, id: self!.id };
}

async function stopNode(node: Node | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (!node || node.server.proc.exitCode !== null || node.server.proc.signalCode !== null) return;
  node.server.proc.kill(signal);
  await node.server.proc.exited;
}

function api(node: Node, path: string, init: RequestInit & { as?: string; json?: unknown } = {}): Promise<Response> {
  const { as = key, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("Authorization", `Bearer ${as}`);
  if (json !== undefined) headers.set("Content-Type", "application/json");
  return fetch(node.url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
}

function q<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return run(conn, (db) => rows<T>(db, query));
}

async function jobRow(jobId: string) {
  const [job] = await q<{ status: string; next_step: string | null; lease_owner: string | null; meeting_id: string }>(
    sql`SELECT status, next_step, lease_owner, meeting_id FROM jobs WHERE id = ${jobId}`,
  );
  return job!;
}

function uploadForm(): FormData {
  const form = new FormData();
  form.append("file", Bun.file(wav), "cluster.wav");
  return form;
}

async function upload(node: Node, as = key, headers: Record<string, string> = {}): Promise<Response> {
  return api(node, "/api/v1/meetings", { method: "POST", as, body: uploadForm(), headers });
}

async function uploaded(node: Node): Promise<{ meetingId: string; jobId: string }> {
  const response = await upload(node);
  expect(response.status).toBe(202);
  const body = (await response.json()) as { id: string; job: { id: string } };
  return { meetingId: body.id, jobId: body.job.id };
}

async function completed(node: Node, jobId: string, as = key): Promise<void> {
  const job = await eventually(
    `job ${jobId} to end`,
    async () => {
      const body = (await (await api(node, `/api/v1/jobs/${jobId}`, { as })).json()) as { status: string };
      return ["completed", "failed", "canceled"].includes(body.status) ? body : undefined;
    },
    60_000,
    100,
  );
  expect(job.status).toBe("completed");
}

async function createUser(email: string, plan: string): Promise<string> {
  const args = ["--data-dir", nodes.a!.dataDir, "--database-url", databaseUrl];
  const user = await runCli(["admin", "user", "create", "--email", email, "--plan", plan, "--json", ...args]);
  if (user.code !== 0) throw new Error(`user create failed: ${user.stderr}`);
  const created = await runCli(["admin", "key", "create", "--email", email, "--name", "cluster", "--scopes", "all", "--json", ...args]);
  if (created.code !== 0) throw new Error(`key create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

beforeAll(async () => {
  if (!onPostgres) return;
  mkdirSync(storageDir, { mode: 0o700 });
  // A 6 s clip of a shared fixture: short enough for CI, long enough for a transcript.
  wav = join(scratch, "cluster.wav");
  const cut = Bun.spawnSync(["ffmpeg", "-v", "error", "-i", join(SHARED_FIXTURES, "meeting-fr-2spk.wav"), "-t", "6", "-ac", "1", "-ar", "16000", wav]);
  if (cut.exitCode !== 0) throw new Error(`ffmpeg: ${cut.stderr.toString()}`);
  databaseUrl = createTestDatabase("cluster");
  conn = new PgConn(databaseUrl, { poolSize: 2, applicationName: "verbatim-test-cluster" });
  receiver = startReceiver();
  // All four at once, in no order: they migrate once and bootstrap one admin between them.
  [nodes.a, nodes.b, nodes.w1, nodes.w2] = await Promise.all([startNode("api"), startNode("api"), startNode("worker"), startNode("worker")]);
  expect(adminKey).toMatch(/^vb_live_/);
  [key, freeKey] = await Promise.all([createUser("cluster@firm.example", "pro"), createUser("one-slot@firm.example", "free")]);
  // Every event of the pro account from here on goes to the receiver (test 5).
  hookPath = `/hooks-${crypto.randomUUID()}`;
  const endpoint = (await (await api(nodes.a!, "/api/v1/webhook_endpoints", { method: "POST", json: { url: receiver.url + hookPath, events: ["*"] } })).json()) as {
    secret: string;
  };
  hookSecret = endpoint.secret;
}, 120_000);

afterAll(async () => {
  if (!onPostgres) return rmSync(scratch, { recursive: true, force: true });
  await Promise.all(Object.values(nodes).map((node) => stopNode(node)));
  await conn?.close();
  receiver?.stop();
  if (databaseUrl) dropTestDatabase(databaseUrl);
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!onPostgres)("two API nodes and two worker nodes on one PostgreSQL", () => {
  test("a meeting uploaded through API node A is processed on a worker node and read through API node B", async () => {
    const { meetingId, jobId } = await uploaded(nodes.a!);
    // Who holds the job while it runs (the lease is let go when it ends).
    const owners = new Set<string>();
    await eventually(`job ${jobId} to complete`, async () => {
      const job = await jobRow(jobId);
      if (job.lease_owner) owners.add(job.lease_owner);
      return job.status === "completed";
    }, 30_000, 50);
    expect(owners.size).toBe(1);
    const [owner] = await q<{ role: string; pid: number }>(sql`SELECT role, pid FROM nodes WHERE id = ${[...owners][0]!}`);
    expect(owner!.role).toBe("worker");
    expect([nodes.w1!.server.proc.pid, nodes.w2!.server.proc.pid]).toContain(owner!.pid);

    await completed(nodes.b!, jobId);
    const transcript = await api(nodes.b!, `/api/v1/meetings/${meetingId}/transcript`);
    expect(transcript.status).toBe(200);
    const body = (await transcript.json()) as { segments: { text: string }[] };
    expect(body.segments.length).toBeGreaterThan(0);
    expect(body.segments[0]!.text).toContain("segment");
  }, 90_000);

  test("kill -9 of the worker node running a step: the other worker finishes the job, its results and debits written once", async () => {
    const { meetingId, jobId } = await uploaded(nodes.b!);
    const running = await eventually(`job ${jobId} to be transcribing on a worker`, async () => {
      const job = await jobRow(jobId);
      return job.status === "processing" && job.next_step === "transcribe" && job.lease_owner ? job : undefined;
    }, 30_000, 50);
    const victim = running.lease_owner === nodes.w1!.id ? "w1" : "w2";
    const survivor = victim === "w1" ? nodes.w2! : nodes.w1!;
    expect(running.lease_owner).toBe(nodes[victim]!.id);
    await stopNode(nodes[victim], "SIGKILL");

    // The survivor takes the job over once the dead node's claim runs out, and completes it.
    const owners = new Set<string>();
    await eventually(
      `job ${jobId} to complete on the other worker`,
      async () => {
        const job = await jobRow(jobId);
        if (job.lease_owner) owners.add(job.lease_owner);
        return job.status === "completed";
      },
      TAKEOVER_MS,
      100,
    );
    expect([...owners].filter((owner) => owner !== running.lease_owner)).toEqual([survivor.id]);
    await completed(nodes.a!, jobId);

    // Each result once: one transcript, one completion, one ledger line per metered operation.
    const transcripts = await q<{ n: number }>(sql`SELECT count(*)::int AS n FROM transcripts WHERE meeting_id = ${meetingId}`);
    expect(transcripts[0]!.n).toBe(1);
    const events = await q<{ type: string; n: number }>(
      sql`SELECT type, count(*)::int AS n FROM events WHERE meeting_id = ${meetingId} AND type IN ('transcription.completed', 'processing.completed') GROUP BY type ORDER BY type`,
    );
    expect(events).toEqual([
      { type: "processing.completed", n: 1 },
      { type: "transcription.completed", n: 1 },
    ]);
    const ledger = await q<{ operation: string; n: number }>(sql`SELECT operation, count(*)::int AS n FROM ledger_lines WHERE meeting_id = ${meetingId} GROUP BY operation ORDER BY operation`);
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.map((l) => l.operation)).toContain("transcription");
    for (const line of ledger) expect(line).toEqual({ operation: line.operation, n: 1 });
    // One decoded recording in the meeting's folder of the shared storage, whoever wrote it.
    const files = readdirSync(join(storageDir, "meetings", meetingId));
    expect(files.filter((f) => f.endsWith(".wav"))).toHaveLength(1);
    expect(files.filter((f) => f.startsWith("transcribe"))).toHaveLength(1);

    // Later tests have two workers again.
    nodes[victim] = await startNode("worker", nodes[victim]!.dataDir);
  }, TAKEOVER_MS + 120_000);

  test("kill -9 of an API node mid-upload: the client's retry with the same Idempotency-Key through the other node creates one meeting", async () => {
    const count = async () => ((await (await api(nodes.b!, "/api/v1/meetings?limit=100")).json()) as { data: unknown[] }).data.length;
    const before = await count();
    const idempotencyKey = crypto.randomUUID();
    const boundary = `cluster-${crypto.randomUUID()}`;
    const audio = new Uint8Array(await Bun.file(wav).arrayBuffer());
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cluster.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
    // A slow client: the header and a first chunk, then a pause that lasts until the node is killed.
    let pause!: () => void;
    const killed = new Promise<void>((resolve) => (pause = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(head);
        controller.enqueue(audio.subarray(0, 64 * 1024));
        await killed;
        controller.close();
      },
    });
    const slow = api(nodes.a!, "/api/v1/meetings", {
      method: "POST",
      body,
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Idempotency-Key": idempotencyKey },
    }).then(
      (response) => response.status,
      () => "dropped" as const,
    );
    // Node A is reading the body: the key is held in progress.
    await eventually("the upload's Idempotency-Key to be in progress", async () => {
      const held = await q<{ status: string }>(sql`SELECT status FROM idempotency_keys WHERE key = ${idempotencyKey}`);
      return held[0]?.status === "in_progress";
    }, 30_000, 50);
    await stopNode(nodes.a, "SIGKILL");
    pause();
    expect(await slow).toBe("dropped");

    // The client retries through node B: 409 while the dead node's hold lasts, then one meeting.
    const statuses: number[] = [];
    const created = await eventually(
      "the retry to be accepted",
      async () => {
        const response = await upload(nodes.b!, key, { "Idempotency-Key": idempotencyKey });
        statuses.push(response.status);
        if (response.status === 409) return undefined;
        return response;
      },
      (IDEMPOTENCY_LEASE_SECONDS * 1000 + 30_000),
      250,
    );
    expect(created.status).toBe(202);
    expect(statuses.every((status) => status === 409 || status === 202)).toBe(true);
    const meeting = (await created.json()) as { id: string; job: { id: string } };
    // A second retry replays the same meeting.
    const replay = await upload(nodes.b!, key, { "Idempotency-Key": idempotencyKey });
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { id: string }).id).toBe(meeting.id);
    expect(await count()).toBe(before + 1);
    await completed(nodes.b!, meeting.job.id);

    nodes.a = await startNode("api", nodes.a!.dataDir);
  }, 120_000);

  test("an account with one processing slot never has two jobs processing at once, whichever nodes take its uploads", async () => {
    const seen: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const [busy] = await q<{ n: number }>(sql`SELECT count(*)::int AS n FROM jobs j JOIN users u ON u.id = j.user_id WHERE u.email = 'one-slot@firm.example' AND j.status = 'processing'`);
        seen.push(busy!.n);
        await Bun.sleep(50);
      }
    })();
    const accepted: string[] = [];
    const refused: number[] = [];
    try {
      for (let round = 0; round < 2; round++) {
        // Four uploads at once, two through each API node: one takes the slot.
        const answers = await Promise.all([nodes.a!, nodes.b!, nodes.a!, nodes.b!].map((node) => upload(node, freeKey)));
        for (const answer of answers) {
          if (answer.status === 202) accepted.push(((await answer.json()) as { job: { id: string } }).job.id);
          else {
            refused.push(answer.status);
            await answer.arrayBuffer();
          }
        }
        expect(accepted).toHaveLength(round + 1);
        await completed(nodes.a!, accepted[round]!, freeKey);
      }
    } finally {
      polling = false;
      await poller;
    }
    expect(refused).toEqual([429, 429, 429, 429, 429, 429]);
    // The poll saw the jobs run (a count of 1), and never two of them at once.
    expect(seen.filter((n) => n === 1).length).toBeGreaterThan(10);
    expect(Math.max(...seen)).toBe(1);
  }, 120_000);

  test("every webhook event of the run reaches the receiver once per delivery attempt, signed, with the SPEC's headers", async () => {
    // Every event of the account has its delivery, and every delivery succeeded (the receiver answers 200).
    const { events, deliveries } = await eventually(
      "every event's delivery to succeed",
      async () => {
        const events = await q<{ id: string }>(sql`SELECT e.id FROM events e JOIN users u ON u.id = e.user_id WHERE u.email = 'cluster@firm.example'`);
        const deliveries = await q<{ id: string; event_id: string; status: string; attempts: number }>(
          sql`SELECT d.id, d.event_id, d.status, d.attempts FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.url = ${receiver.url + hookPath}`,
        );
        return deliveries.length === events.length && deliveries.every((d) => d.status === "succeeded") ? { events, deliveries } : undefined;
      },
      90_000,
      200,
    );
    // Tests 1 to 3 processed three meetings: each told at least its transcription and its completion.
    expect(events.length).toBeGreaterThanOrEqual(6);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(events.map((e) => e.id)));
    const arrived = receiver.received.filter((r) => r.path === hookPath);
    const byDelivery = new Map<string, number>();
    for (const r of arrived) {
      const id = r.headers.get("verbatim-delivery-id")!;
      byDelivery.set(id, (byDelivery.get(id) ?? 0) + 1);
      expect(r.headers.get("user-agent")).toMatch(/^Verbatim-Webhooks\/1\.0 \(verbatim \S+\)$/);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(verifySignature(r.body, r.headers.get("verbatim-signature"), [hookSecret])).toBe(true);
      const event = JSON.parse(r.body) as { id: string; type: string };
      expect(r.headers.get("verbatim-event-id")).toBe(event.id);
      expect(r.headers.get("verbatim-event-type")).toBe(event.type);
    }
    // Once per attempt: each delivery arrived as many times as it was attempted (once, here).
    expect(Object.fromEntries(byDelivery)).toEqual(Object.fromEntries(deliveries.map((d) => [d.id, d.attempts])));
  }, 120_000);
});

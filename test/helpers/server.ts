import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/db/client.ts";
import { connOf, type DbConn } from "../../src/db/conn.ts";
import { PgConn } from "../../src/db/pg-conn.ts";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../support/postgres.ts";
import { spawnServer, type SpawnedServer } from "./spawn-server.ts";

export const ROOT = join(import.meta.dir, "..", "..");
/** The shared fixtures, beside the checkout (`../shared`), wherever the checkout is. */
export const SHARED_FIXTURES = join(ROOT, "..", "shared", "fixtures");
export const BUN = process.execPath;
/** Bun's own parser ceiling, above the service's 16 KiB limit, so the service can answer 431 itself. */
export const BUN_FLAGS = ["--max-http-header-size=65536"];

export interface TestServer {
  url: string;
  dataDir: string;
  /** The all-scopes key of admin@localhost, printed once by the first start. */
  adminKey: string;
  process: SpawnedServer["proc"];
  /** Output lines the server printed so far (request log included). */
  lines: string[];
  /** Lines it printed on stderr so far (warnings and errors, one JSON object each). */
  errorLines: string[];
  /** fetch against the server; `key` sets Authorization: Bearer. */
  api(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  /** Runs `verbatim admin ...` on this server's data dir, like an operator would while it runs. */
  admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Opens the server's SQLite file (WAL) to set up rows the API has no endpoint to create yet; SQLite run only. */
  db(): Db;
  /** The server's database as stores take it, on either run of the suite (closed by stop()). */
  conn(): DbConn;
  /** On the PostgreSQL run: the server's database URL (--database-url). */
  databaseUrl?: string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  dataDir?: string;
  command?: string[]; // defaults to bun src/main.ts
  /** The server's working directory; defaults to the checkout. */
  cwd?: string;
  /** How long it may take to listen (spawn-server's 20 s unless given): several started at once on a busy machine take longer. */
  startTimeoutMs?: number;
}

/**
 * On the PostgreSQL run, the database of a data dir: made with the data dir's first server and kept
 * for a restart on the same data dir, as its SQLite file would be.
 */
const databasesByDataDir = new Map<string, string>();

function databaseOf(dataDir: string): string {
  let url = databasesByDataDir.get(dataDir);
  if (!url) {
    url = createTestDatabase("server");
    databasesByDataDir.set(dataDir, url);
  }
  return url;
}

/** The --database-url arguments a command on this data dir needs (none on the SQLite run). */
export function databaseArgs(dataDir: string): string[] {
  return onPostgres ? ["--database-url", databaseOf(dataDir)] : [];
}

/** Forgets (and drops) the PostgreSQL database of a data dir that is being removed. */
export function dropDatabaseOf(dataDir: string): void {
  const url = databasesByDataDir.get(dataDir);
  if (!url) return;
  databasesByDataDir.delete(dataDir);
  dropTestDatabase(url);
}

/** Starts `verbatim serve --port 0` on a fresh data dir and waits for its listening line. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "verbatim-test-"));
  const command = options.command ?? [BUN, ...BUN_FLAGS, join(ROOT, "src/main.ts")];
  const ownDatabase = !(options.args ?? []).includes("--database-url");
  const database = ownDatabase ? databaseArgs(dataDir) : [];
  const { url, proc, stdout: lines, stderr: errorLines, drained } = await spawnServer({
    command: [...command, "serve", "--port", "0", "--data-dir", dataDir, ...database, ...(options.args ?? [])],
    cwd: options.cwd ?? ROOT,
    // A server on PostgreSQL takes longer to start (its pools, pg-boss's schema check and queues):
    // measured 10.7 s against SQLite's 6.0 s on the loaded 2-core machine, past 20 s with two at
    // once; and the suite's two runs share the CI's 2 cores. Only a start that hangs hits this.
    timeoutMs: options.startTimeoutMs ?? 45_000,
    // Tests run the development stand-ins, whatever real models this checkout may hold. Workers get
    // only an allowlisted environment: the engine doubles' behaviour and the process marker are
    // passed to them by name (--worker-env).
    env: { VERBATIM_LOG_REQUESTS: "true", VERBATIM_MODELS_PROFILE: "stand-in", VERBATIM_WORKER_ENV: "TEST_ENGINE_BEHAVIOR,VERBATIM_TEST_MARK", ...options.env },
  });
  const adminKey = lines.map((l) => /^\s+(vb_live_\w+)$/.exec(l)?.[1]).find(Boolean) ?? "";
  const opened: Db[] = [];
  const conns: DbConn[] = [];

  return {
    url,
    dataDir,
    adminKey,
    process: proc,
    lines,
    errorLines,
    api(path, init = {}) {
      const { key, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set("Authorization", `Bearer ${key}`);
      if (json !== undefined) headers.set("Content-Type", "application/json");
      return fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    admin: (...args) => runCli(["admin", ...args, "--data-dir", dataDir, ...database], command),
    databaseUrl: database[1],
    db() {
      if (onPostgres) throw new Error("server.db() is the SQLite file's: use server.conn() so the test runs on PostgreSQL too");
      const db = openDatabase(join(dataDir, "verbatim.db"));
      opened.push(db);
      return db;
    },
    conn() {
      const conn = database.length ? new PgConn(database[1]!, { poolSize: 2, applicationName: "verbatim-test" }) : connOf(openDatabase(join(dataDir, "verbatim.db")));
      conns.push(conn);
      return conn;
    },
    async stop(signal = "SIGTERM") {
      // Each closed once, should stop() be called again (a test that stops a server early, and its finally).
      for (const db of opened.splice(0)) db.$client.close();
      for (const conn of conns.splice(0)) await conn.close();
      proc.kill(signal);
      const code = await proc.exited;
      await drained;
      if (!options.dataDir) {
        rmSync(dataDir, { recursive: true, force: true });
        if (ownDatabase) dropDatabaseOf(dataDir);
      }
      return code;
    },
  };
}

export async function runCli(args: string[], command = [BUN, join(ROOT, "src/main.ts")]) {
  const proc = Bun.spawn([...command, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: { ...process.env, VERBATIM_MODELS_PROFILE: process.env.VERBATIM_MODELS_PROFILE ?? "stand-in" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Creates a user and an API key through the admin CLI; returns the key. */
export async function createUserWithKey(
  server: TestServer,
  email: string,
  scopes = "all",
  plan: "free" | "standard" | "pro" = "pro",
): Promise<string> {
  const user = await server.admin("user", "create", "--email", email, "--plan", plan, "--json");
  if (user.code !== 0) throw new Error(`user create failed: ${user.stderr}`);
  const key = await server.admin("key", "create", "--email", email, "--name", "test", "--scopes", scopes, "--json");
  if (key.code !== 0) throw new Error(`key create failed: ${key.stderr}`);
  return (JSON.parse(key.stdout) as { key: string }).key;
}

/** Polls GET /v1/jobs/{id} until the job has ended (completed, failed or canceled); answers its last body. */
export async function endedJob(server: TestServer, key: string, jobId: string, timeoutMs = 120_000): Promise<any> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  while (Date.now() < deadline) {
    const response = await server.api(`/api/v1/jobs/${jobId}`, { key });
    // The key's plan may be throttled (pro: 120 requests a minute): wait as told, within the deadline.
    if (response.status === 429) {
      await Bun.sleep(Math.min(Number(response.headers.get("retry-after") ?? 1) * 1000, Math.max(0, deadline - Date.now())));
      continue;
    }
    // Any other refusal never turns into a job status: fail now with it, not at the deadline.
    if (!response.ok) throw new Error(`GET /api/v1/jobs/${jobId} answered ${response.status}: ${await response.text()}`);
    const job = (await response.json()) as { status?: string };
    if (job.status === "completed" || job.status === "failed" || job.status === "canceled") return job;
    // Quick at first (most test jobs take well under a second), then gentler on the plan's limit.
    await Bun.sleep(Date.now() < started + 2_000 ? 50 : 250);
  }
  throw new Error(`job ${jobId} did not end within ${timeoutMs} ms`);
}

/** Polls GET /v1/meetings/{id} until the meeting is completed or failed (a web app meeting has no job to poll); answers its last body. */
export async function settledMeeting(server: TestServer, key: string, meetingId: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await server.api(`/api/v1/meetings/${meetingId}`, { key });
    // A throttled plan: wait as told (endedJob's reasoning), within the deadline.
    if (response.status === 429 && Date.now() < deadline) {
      await Bun.sleep(Math.min(Number(response.headers.get("retry-after") ?? 1) * 1000, Math.max(0, deadline - Date.now())));
      continue;
    }
    const meeting = (await response.json()) as { status?: string };
    if (meeting.status === "completed" || meeting.status === "failed" || Date.now() >= deadline) return meeting;
    await Bun.sleep(100);
  }
}

/** The problem+json shape every error must have. */
export async function expectProblem(response: Response, status: number, code: string) {
  const { expect } = await import("bun:test");
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  expect(body.type).toMatch(new RegExp(`/docs/api/errors#${code}$`));
  expect(body.instance).toBe(new URL(response.url).pathname);
  expect(body.request_id).toBe(response.headers.get("x-request-id"));
  expectRateHeaders(response);
  return body;
}

export function expectRateHeaders(response: Response) {
  const { expect } = require("bun:test") as typeof import("bun:test");
  expect(response.headers.get("x-request-id")).toMatch(/^req_\w+$/);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(response.headers.get(name)).toMatch(/^\d+$/);
  }
}

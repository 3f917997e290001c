import { rootOf, type Conn } from "../db/conn.ts";
import { pendingMigrationsOf, pingDatabase } from "../db/readiness.ts";
import type { BuiltinEngineSettings } from "../engines/builtin.ts";
import { configuredModels, STAND_IN_WARNING } from "../models/catalogue.ts";
import { childEnvironment } from "../lib/child-env.ts";
import type { Clock } from "../lib/time.ts";
import { liveNodeCount } from "../nodes/store.ts";

/**
 * What a PostgreSQL failure may say to a caller of /readyz: its error text can name the host, the
 * port and the user of --database-url, which are the operator's, so it is one word there.
 */
const UNREACHABLE = "unreachable";

function failureDetail(conn: Conn, error: unknown): string {
  return rootOf(conn).dialect === "postgres" ? UNREACHABLE : (error as Error).message;
}

export interface CheckResult {
  ready: boolean;
  detail: string;
}

export interface ReadinessCheck {
  name: string;
  /** Required checks decide readiness; the others (engines) are reported for operators. */
  required: boolean;
  run(): CheckResult | Promise<CheckResult>;
}

export function databaseCheck(conn: Conn): ReadinessCheck {
  return {
    name: "database",
    required: true,
    async run() {
      try {
        await pingDatabase(conn);
        return { ready: true, detail: "open" };
      } catch (error) {
        return { ready: false, detail: failureDetail(conn, error) };
      }
    },
  };
}

export function migrationsCheck(conn: Conn): ReadinessCheck {
  return {
    name: "migrations",
    required: true,
    async run() {
      // A database that cannot say (unreachable, or no migration table yet) is not ready, not a 500.
      try {
        const pending = await pendingMigrationsOf(conn);
        return pending.length ? { ready: false, detail: `pending: ${pending.join(", ")}` } : { ready: true, detail: "applied" };
      } catch (error) {
        return { ready: false, detail: failureDetail(conn, error) };
      }
    },
  };
}

/**
 * On PostgreSQL, how many worker nodes (role worker or all) have a fresh heartbeat. Not required:
 * an API node with none still takes uploads (their jobs wait in the queue), so it stays ready,
 * and the check says why the jobs do not move (status "degraded").
 */
export function workersCheck(conn: Conn, clock: Clock): ReadinessCheck {
  return {
    name: "workers",
    required: false,
    async run() {
      try {
        const live = await liveNodeCount(conn, ["worker", "all"], clock.now());
        return live > 0
          ? { ready: true, detail: `${live} worker node(s) alive` }
          : { ready: false, detail: "0 worker nodes alive: jobs wait in the queue until one starts" };
      } catch (error) {
        return { ready: false, detail: failureDetail(conn, error) };
      }
    },
  };
}

/** ffmpeg decodes every upload; found once at start, since installing it needs a restart anyway. */
export function ffmpegCheck(ffmpegPath: string): ReadinessCheck {
  const version = probeVersion(ffmpegPath);
  return {
    name: "ffmpeg",
    required: false,
    run: () => (version ? { ready: true, detail: version } : { ready: false, detail: `${ffmpegPath} not found or not runnable` }),
  };
}

/** Each configured model file is present (and matches the catalogue when it is one we ship). */
export function modelsCheck(settings: BuiltinEngineSettings): ReadinessCheck {
  return {
    name: "models",
    required: false,
    async run() {
      const models = await configuredModels(settings.modelsDir, settings.models);
      const names = models.map((m) => m.name);
      const problems = models.filter((m) => m.state !== "ok").map((m) => `${m.name}: ${m.state}`);
      if (problems.length) return { ready: false, detail: `${problems.join("; ")} (run scripts/install-models.ts)` };
      const standIns = models.filter((m) => m.standIn).map((m) => m.name);
      return { ready: true, detail: standIns.length ? `${names.join(", ")}; ${STAND_IN_WARNING} (${standIns.join(", ")})` : names.join(", ") };
    },
  };
}

function probeVersion(command: string): string | undefined {
  try {
    const result = Bun.spawnSync([command, "-version"], { stdout: "pipe", stderr: "ignore", env: childEnvironment(process.env) });
    if (result.exitCode !== 0) return undefined;
    return result.stdout.toString().split("\n")[0]?.trim();
  } catch {
    return undefined;
  }
}

export async function runChecks(checks: ReadinessCheck[]) {
  const results = await Promise.all(checks.map(async (c) => ({ check: c, result: await c.run() })));
  const ready = results.every(({ check, result }) => !check.required || result.ready);
  const degraded = results.some(({ result }) => !result.ready);
  return {
    status: ready ? (degraded ? "degraded" : "ready") : "not_ready",
    ready,
    checks: Object.fromEntries(results.map(({ check, result }) => [check.name, { ...result, required: check.required }])),
  };
}

import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { pendingMigrations } from "../db/migrate.ts";

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

export function databaseCheck(sqlite: Database): ReadinessCheck {
  return {
    name: "database",
    required: true,
    run() {
      try {
        sqlite.query("SELECT 1").get();
        return { ready: true, detail: "open" };
      } catch (error) {
        return { ready: false, detail: (error as Error).message };
      }
    },
  };
}

export function migrationsCheck(sqlite: Database): ReadinessCheck {
  return {
    name: "migrations",
    required: true,
    run() {
      const pending = pendingMigrations(sqlite);
      return pending.length ? { ready: false, detail: `pending: ${pending.join(", ")}` } : { ready: true, detail: "applied" };
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

export function modelsDirCheck(modelsDir: string): ReadinessCheck {
  return {
    name: "models_dir",
    required: false,
    run: () =>
      existsSync(modelsDir)
        ? { ready: true, detail: modelsDir }
        : { ready: false, detail: `${modelsDir} does not exist; run scripts/install-models.ts` },
  };
}

function probeVersion(command: string): string | undefined {
  try {
    const result = Bun.spawnSync([command, "-version"], { stdout: "pipe", stderr: "ignore" });
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

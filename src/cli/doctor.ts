/**
 * `verbatim doctor`: what this machine and data dir give the service, and what is wrong with them.
 * It reads; it changes nothing, and it works whether or not a server runs on the data dir. Each
 * finding is a line; problems are named and make the exit status 1.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { SERVE_OPTIONS } from "../config-options.ts";
import { serviceConfig } from "../config.ts";
import { quickCheck } from "../db/database-check.ts";
import { databasePath } from "../db/paths.ts";
import { PgConn } from "../db/pg-conn.ts";
import { pendingMigrationsOf, postgresVersionNumber } from "../db/readiness.ts";
import { chooseBackend } from "../engines/whisper/select.ts";
import { configuredModels, STAND_IN_WARNING } from "../models/catalogue.ts";
import { diskSpace, floorBytes } from "../storage/disk-space.ts";
import { DataDirInUse, lockDataDir } from "../db/data-dir-lock.ts";
import type { Command } from "./admin.ts";
import { CommandFailed } from "./options.ts";

export interface Finding {
  check: string;
  ok: boolean;
  detail: string;
}

function gpu(): Finding {
  try {
    const result = Bun.spawnSync(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"], { stdout: "pipe", stderr: "ignore" });
    const line = result.exitCode === 0 ? result.stdout.toString().trim().split("\n")[0] : undefined;
    if (line) return { check: "gpu", ok: true, detail: `NVIDIA ${line}` };
  } catch {
    // no nvidia-smi
  }
  return { check: "gpu", ok: true, detail: `no NVIDIA GPU found: the engines run on the CPU (${availableParallelism()} cores)` };
}

function ffmpeg(path: string): Finding {
  try {
    const result = Bun.spawnSync([path, "-version"], { stdout: "pipe", stderr: "ignore" });
    const version = result.exitCode === 0 ? result.stdout.toString().split("\n")[0]?.trim() : undefined;
    if (version) return { check: "ffmpeg", ok: true, detail: version };
  } catch {
    // not found
  }
  return { check: "ffmpeg", ok: false, detail: `${path} is not found or does not run: install ffmpeg (apt-get install ffmpeg)` };
}

function database(dataDir: string): Finding {
  const path = databasePath(dataDir);
  if (!existsSync(path)) return { check: "database", ok: true, detail: "none yet: the first start creates it" };
  try {
    const result = quickCheck(path);
    return result === "ok" ? { check: "database", ok: true, detail: "integrity check ok" } : { check: "database", ok: false, detail: `integrity check failed: ${result.slice(0, 300)}` };
  } catch (error) {
    return { check: "database", ok: false, detail: `cannot be opened: ${(error as Error).message}` };
  }
}

function lock(dataDir: string): Finding {
  if (!existsSync(dataDir)) return { check: "data dir", ok: true, detail: "does not exist yet" };
  try {
    lockDataDir(dataDir).release();
    return { check: "data dir", ok: true, detail: "no server is running on it" };
  } catch (error) {
    if (error instanceof DataDirInUse) return { check: "data dir", ok: true, detail: "a server is running on it (its lock is held)" };
    return { check: "data dir", ok: false, detail: (error as Error).message };
  }
}

function disk(dataDir: string, floor: { percent: number; bytes: number }): Finding {
  const where = existsSync(dataDir) ? dataDir : ".";
  const { freeBytes, totalBytes } = diskSpace(where);
  const reserve = floorBytes(totalBytes, floor);
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  const detail = `${gib(freeBytes)} free of ${gib(totalBytes)}; the reserve is ${gib(reserve)}`;
  return freeBytes > reserve ? { check: "disk", ok: true, detail } : { check: "disk", ok: false, detail: `${detail}: uploads are refused until space is freed` };
}

/** The oldest PostgreSQL the service supports (issue 22). */
const MIN_POSTGRES_MAJOR = 15;

/** An error's first line, with the database password (if the driver echoed the URL) masked. */
function withoutSecret(message: string, url: string): string {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : "";
  const line = message.split("\n")[0]!.trim();
  return password ? line.replaceAll(password, "***") : line;
}

/** On PostgreSQL: it answers, it is 15 or later, and its migrations are all applied. */
async function postgres(url: string): Promise<Finding[]> {
  const conn = new PgConn(url, { poolSize: 1, applicationName: "verbatim-doctor" });
  try {
    let version: number;
    try {
      version = await postgresVersionNumber(conn);
    } catch (error) {
      return [{ check: "database", ok: false, detail: `PostgreSQL does not answer: ${withoutSecret((error as Error).message, url)}` }];
    }
    const major = Math.floor(version / 10_000);
    const named = `PostgreSQL ${major}.${version % 10_000}`;
    const findings: Finding[] = [
      major >= MIN_POSTGRES_MAJOR
        ? { check: "database", ok: true, detail: `${named} answers` }
        : { check: "database", ok: false, detail: `${named} answers, but Verbatim needs PostgreSQL ${MIN_POSTGRES_MAJOR} or later` },
    ];
    const pending = await pendingMigrationsOf(conn);
    findings.push(
      pending.length
        ? { check: "migrations", ok: false, detail: `${pending.length} pending (${pending.join(", ")}): the next node to start applies them` }
        : { check: "migrations", ok: true, detail: "all applied" },
    );
    return findings;
  } finally {
    await conn.close();
  }
}

/**
 * The storage dir every node mounts: a probe file written (then renamed, as the service writes),
 * read back and deleted from this node. A read-only mount, a full disk or a missing folder shows here.
 */
function sharedStorage(storageDir: string): Finding {
  if (!existsSync(storageDir)) return { check: "storage", ok: false, detail: `${storageDir} does not exist: mount the shared storage there (or create it)` };
  const probe = join(storageDir, `.doctor-probe-${process.pid}-${crypto.randomUUID()}`);
  const content = `verbatim doctor ${new Date().toISOString()}`;
  try {
    writeFileSync(`${probe}.tmp`, content, { mode: 0o600 });
    renameSync(`${probe}.tmp`, probe);
    if (readFileSync(probe, "utf8") !== content) return { check: "storage", ok: false, detail: `${storageDir}: a probe file read back differs from what was written` };
    rmSync(probe);
    return { check: "storage", ok: true, detail: `${storageDir}: a probe file written, read back and deleted` };
  } catch (error) {
    return { check: "storage", ok: false, detail: `${storageDir}: ${(error as Error).message.split("\n")[0]}` };
  } finally {
    // Nothing left behind; a path that cannot hold a file (the storage dir is not a folder) has none.
    for (const path of [`${probe}.tmp`, probe]) {
      try {
        rmSync(path, { force: true });
      } catch {
        // not there to remove
      }
    }
  }
}

export async function runDoctor(values: Parameters<typeof serviceConfig>[0]): Promise<Finding[]> {
  const config = serviceConfig(values);
  const settings = config.engineSettings;
  const findings: Finding[] = [gpu()];

  const whisper = await chooseBackend(settings.gpu === "auto").catch((error: Error) => ({ backend: "none", reason: error.message }));
  findings.push({ check: "whisper.cpp", ok: whisper.backend !== "none", detail: `${whisper.backend}: ${whisper.reason}` });
  findings.push({
    check: "llama.cpp",
    ok: true,
    detail: settings.gpu === "auto" ? "node-llama-cpp: its CUDA (then Vulkan) build when a GPU answers, else the CPU build" : "node-llama-cpp: CPU build (--gpu off)",
  });

  const models = await configuredModels(settings.modelsDir, settings.models);
  for (const { role, name, state } of models) {
    findings.push({
      check: `model ${role}`,
      ok: state === "ok",
      detail: state === "ok" ? name : `${name}: ${state.replace("_", " ")} (install it: bun scripts/install-models.ts)`,
    });
  }
  const standIns = models.filter((m) => m.standIn).map((m) => m.name);
  if (standIns.length) findings.push({ check: "models", ok: true, detail: `warning: ${STAND_IN_WARNING} (${standIns.join(", ")})` });

  findings.push(ffmpeg(config.ffmpegPath), disk(config.dataDir, config.minFreeDisk));
  // With --database-url: PostgreSQL and the storage dir the nodes share, instead of the SQLite file.
  if (config.database) findings.push(...(await postgres(config.database.url)), sharedStorage(config.storageDir));
  else findings.push(database(config.dataDir));
  findings.push(lock(config.dataDir));
  return findings;
}

export const doctorCommand: Command = {
  usage: "verbatim doctor [--data-dir ./data] [--models-dir ./models] [--database-url URL --storage-dir DIR] [--json] [serve options]",
  summary:
    "Check the machine and data dir: GPU, engines and their builds, models (and whether they are development stand-ins), ffmpeg, free disk, database integrity, whether a server runs. With --database-url: PostgreSQL answers and is 15 or later, its migrations are applied, and the storage dir takes a probe file (write, read, delete). Exits 1 naming each problem.",
  options: [...SERVE_OPTIONS, { name: "json", type: "bool", help: "Print the findings as JSON." }],
  async run(values, out) {
    const findings = await runDoctor(values);
    if (values.json) out(JSON.stringify(findings));
    else for (const f of findings) out(`${f.ok ? "ok     " : "PROBLEM"}  ${f.check}: ${f.detail}`);
    const problems = findings.filter((f) => !f.ok);
    if (problems.length) throw new CommandFailed(`${problems.length} problem(s): ${problems.map((p) => p.check).join(", ")}`);
  },
};

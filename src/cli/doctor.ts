/**
 * `verbatim doctor`: what this machine and data dir give the service, and what is wrong with them.
 * It reads; it changes nothing, and it works whether or not a server runs on the data dir. Each
 * finding is a line; problems are named and make the exit status 1.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { SERVE_OPTIONS } from "../config-options.ts";
import { serviceConfig } from "../config.ts";
import { quickCheck } from "../db/database-check.ts";
import { databasePath } from "../db/paths.ts";
import { chooseBackend } from "../engines/whisper/select.ts";
import { configuredModelState, STAND_IN_WARNING, standInModels } from "../models/catalogue.ts";
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

  for (const [role, name] of Object.entries(settings.models)) {
    if (name === null) continue;
    const state = await configuredModelState(settings.modelsDir, name);
    findings.push({
      check: `model ${role}`,
      ok: state === "ok",
      detail: state === "ok" ? name : `${name}: ${state.replace("_", " ")} (install it: bun scripts/install-models.ts)`,
    });
  }
  const standIns = standInModels(Object.values(settings.models));
  if (standIns.length) findings.push({ check: "models", ok: true, detail: `warning: ${STAND_IN_WARNING} (${standIns.join(", ")})` });

  findings.push(ffmpeg(config.ffmpegPath), disk(config.dataDir, config.minFreeDisk), database(config.dataDir), lock(config.dataDir));
  return findings;
}

export const doctorCommand: Command = {
  usage: "verbatim doctor [--data-dir ./data] [--models-dir ./models] [--json] [serve options]",
  summary: "Check the machine and data dir: GPU, engines and their builds, models (and whether they are development stand-ins), ffmpeg, free disk, database integrity, whether a server runs. Exits 1 naming each problem.",
  options: [...SERVE_OPTIONS, { name: "json", type: "bool", help: "Print the findings as JSON." }],
  async run(values, out) {
    const findings = await runDoctor(values);
    if (values.json) out(JSON.stringify(findings));
    else for (const f of findings) out(`${f.ok ? "ok     " : "PROBLEM"}  ${f.check}: ${f.detail}`);
    const problems = findings.filter((f) => !f.ok);
    if (problems.length) throw new CommandFailed(`${problems.length} problem(s): ${problems.map((p) => p.check).join(", ")}`);
  },
};

/**
 * `verbatim models list | install | verify | import`: the catalogue's models in the models
 * directory. Installing downloads (resuming partial files) or copies from a folder, and checks
 * every file before it is put in place; import takes models carried into an air-gapped site.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { x as extract } from "tar";
import { SERVE_OPTIONS } from "../config-options.ts";
import { serviceConfig } from "../config.ts";
import { expectedFor, readCatalogue, SHIPPED_CATALOGUE, verifyModelFile, configuredModelState, type CatalogueEntry } from "../models/catalogue.ts";
import { installModel, InstallFailed } from "../models/install.ts";
import type { Command } from "./admin.ts";
import { CommandFailed, UsageError, type OptionSpec, type OptionValues } from "./options.ts";

const MODELS_DIR = SERVE_OPTIONS.find((o) => o.name === "models-dir")!;
const CATALOGUE: OptionSpec = { name: "catalogue", type: "string", env: "VERBATIM_CATALOGUE", help: "A catalogue file (JSON, as models/catalogue.json) to use instead of the shipped one." };
const JSON_OPTION: OptionSpec = { name: "json", type: "bool", help: "Print JSON." };

async function catalogueOf(values: OptionValues): Promise<CatalogueEntry[]> {
  return values.catalogue ? readCatalogue(resolve(values.catalogue as string)) : SHIPPED_CATALOGUE;
}

const modelsDirOf = (values: OptionValues) => resolve(values["models-dir"] as string);

/** One progress line per 5 % (a line each, so logs and non-terminals read it too). */
function progressPrinter(name: string, out: (line: string) => void) {
  let last = -1;
  return (done: number, total: number | null) => {
    if (total === null) return;
    const percent = Math.floor((done / total) * 20) * 5;
    if (percent === last) return;
    last = percent;
    out(`  ${name}: ${percent}% (${(done / 1024 / 1024).toFixed(1)} of ${(total / 1024 / 1024).toFixed(1)} MiB)`);
  };
}

export const modelCommands: Record<string, Command> = {
  "models list": {
    usage: "verbatim models list [--models-dir DIR] [--json]",
    summary:
      "The catalogue's models: kind, profiles, size, licence, whether a development stand-in, and whether installed. With --json, each also gives what fetching it on another machine needs: its source url (and the archive member to take out of it), its size and sha256 (the catalogue's, else the one lock.json recorded), to check it and bring it in with `models import`.",
    options: [MODELS_DIR, CATALOGUE, JSON_OPTION],
    async run(values, out) {
      const dir = modelsDirOf(values);
      const rows = [];
      for (const entry of await catalogueOf(values)) {
        const expected = expectedFor(dir, entry);
        rows.push({
          name: entry.name,
          kind: entry.kind,
          path: entry.path,
          profiles: entry.profiles,
          bytes: expected.bytes,
          sha256: expected.sha256,
          // Where sha256 comes from: the catalogue (a public source), lock.json (the first verified download here), or nowhere yet.
          sha256_from: entry.sha256 ? "catalogue" : expected.sha256 ? "lock" : null,
          sha1: entry.sha1 ?? null,
          url: entry.url,
          archive_member: entry.archive_member ?? null,
          archive_bytes: entry.archive_bytes ?? null,
          licence: entry.licence ?? null,
          source: entry.source ?? null,
          stand_in: entry.stand_in,
          installed: (await verifyModelFile(dir, entry)) === "ok",
        });
      }
      if (values.json) out(JSON.stringify(rows));
      else for (const r of rows) out(`${r.installed ? "installed" : "-        "}  ${r.name.padEnd(34)} ${r.kind.padEnd(12)} ${(r.profiles.join(",") || (r.stand_in ? "stand-in" : "")).padEnd(8)} ${r.path}`);
    },
  },
  "models install": {
    usage: "verbatim models install NAME... | --profile gpu|cpu [--from DIR] [--models-dir DIR]",
    summary: "Install models: copied from --from when it has them, else downloaded (a partial download resumes), each checked against the catalogue before it is put in place.",
    positional: "names",
    options: [
      MODELS_DIR,
      CATALOGUE,
      { name: "names", type: "string", valueName: "a,b", help: "Catalogue names, comma-separated." },
      { name: "profile", type: "string", help: "Every model of a profile: gpu or cpu." },
      { name: "from", type: "string", help: "A folder laid out as the models directory to copy from first." },
    ],
    async run(values, out) {
      const catalogue = await catalogueOf(values);
      const names = ((values.names as string | undefined) ?? "").split(",").map((n) => n.trim()).filter(Boolean);
      const profile = values.profile as string | undefined;
      if (!names.length && !profile) throw new UsageError("give --names a,b or --profile gpu|cpu");
      if (profile && profile !== "gpu" && profile !== "cpu") throw new UsageError("--profile must be gpu or cpu");
      const unknown = names.filter((n) => !catalogue.some((e) => e.name === n));
      if (unknown.length) throw new UsageError(`unknown model(s): ${unknown.join(", ")}; see: verbatim models list`);
      const wanted = catalogue.filter((e) => names.includes(e.name) || (profile !== undefined && e.profiles.includes(profile as "gpu" | "cpu")));
      const dir = modelsDirOf(values);
      const failures: string[] = [];
      for (const entry of wanted) {
        try {
          const outcome = await installModel(dir, entry, {
            localDirs: values.from ? [resolve(values.from as string)] : [],
            onProgress: progressPrinter(entry.name, out),
          });
          out(`${outcome.padEnd(10)} ${entry.name} (${entry.path})`);
        } catch (error) {
          failures.push(entry.name);
          out(`FAILED     ${entry.name}: ${error instanceof InstallFailed ? error.message : (error as Error).message}`);
        }
      }
      if (failures.length) throw new CommandFailed(`could not install: ${failures.join(", ")}`);
    },
  },
  "models verify": {
    usage: "verbatim models verify [serve options]",
    summary: "Check every configured model file (and every installed catalogue model) against the catalogue; exits 1 naming each bad one.",
    options: [...SERVE_OPTIONS, CATALOGUE, JSON_OPTION],
    async run(values, out) {
      const settings = serviceConfig(values).engineSettings;
      const results: { name: string; state: string }[] = [];
      for (const name of Object.values(settings.models)) {
        if (name !== null) results.push({ name, state: await configuredModelState(settings.modelsDir, name) });
      }
      for (const entry of await catalogueOf(values)) {
        if (results.some((r) => r.name === entry.path) || !existsSync(join(settings.modelsDir, entry.path))) continue;
        results.push({ name: entry.path, state: await verifyModelFile(settings.modelsDir, entry) });
      }
      if (values.json) out(JSON.stringify(results));
      else for (const r of results) out(`${r.state === "ok" ? "ok     " : "PROBLEM"}  ${r.name}${r.state === "ok" ? "" : `: ${r.state.replace("_", " ")}`}`);
      const bad = results.filter((r) => r.state !== "ok");
      if (bad.length) throw new CommandFailed(`bad model file(s): ${bad.map((r) => r.name).join(", ")}`);
    },
  },
  "models import": {
    usage: "verbatim models import PATH [--models-dir DIR]",
    summary: "Import the catalogue models found in a folder or a tar archive (carried into an air-gapped site), each checked against the catalogue.",
    positional: "path",
    options: [MODELS_DIR, CATALOGUE, { name: "path", type: "string", required: true, help: "A folder (laid out as the models directory, or flat) or a .tar/.tar.gz archive." }],
    async run(values, out) {
      const source = resolve(values.path as string);
      if (!existsSync(source)) throw new UsageError(`no such file or folder: ${source}`);
      const dir = modelsDirOf(values);
      mkdirSync(dir, { recursive: true });
      const unpacked = statSync(source).isDirectory() ? null : mkdtempSync(join(dir, ".import-"));
      try {
        if (unpacked) {
          // Only files and folders, inside the temporary folder (node-tar refuses absolute paths and "..").
          await extract({ file: source, cwd: unpacked, filter: (_path, entry) => "type" in entry && (entry.type === "File" || entry.type === "Directory") });
        }
        const root = unpacked ?? source;
        const files = walk(root);
        let imported = 0;
        const failures: string[] = [];
        for (const entry of await catalogueOf(values)) {
          const found = existsSync(join(root, entry.path)) ? root : files.find((f) => basename(f) === basename(entry.path));
          if (!found) continue;
          const localDir = found === root ? root : mkdtempSync(join(dir, ".import-one-"));
          try {
            if (found !== root) {
              mkdirSync(join(localDir, entry.path, ".."), { recursive: true });
              try {
                linkSync(found, join(localDir, entry.path));
              } catch {
                copyFileSync(found, join(localDir, entry.path));
              }
            }
            const outcome = await installModel(dir, entry, { localDirs: [localDir] });
            out(`${outcome === "present" ? "present" : "imported"}  ${entry.name} (${entry.path})`);
            imported++;
          } catch (error) {
            failures.push(entry.name);
            out(`FAILED    ${entry.name}: ${(error as Error).message}`);
          } finally {
            if (localDir !== root) rmSync(localDir, { recursive: true, force: true });
          }
        }
        if (failures.length) throw new CommandFailed(`could not import: ${failures.join(", ")}`);
        if (!imported) throw new CommandFailed(`no catalogue model found in ${source}`);
      } finally {
        if (unpacked) rmSync(unpacked, { recursive: true, force: true });
      }
    },
  },
};

/** Every regular file under `dir`. */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) out.push(...walk(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

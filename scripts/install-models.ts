// Installs the catalogue's default models (the development stand-ins the tests use) into models/
// (or --models-dir): copied from ../shared/models when that folder exists beside the project, else
// downloaded. With --profile auto|gpu|cpu it first installs that profile's real models (auto: gpu
// when nvidia-smi finds a GPU, else cpu) when their source answers; when it does not (an air-gapped
// host, a CI machine) it says so in one line and goes on with the stand-ins. The same code as
// `verbatim models install` (src/models/install.ts): every file checked before it is moved into place.
//   bun scripts/install-models.ts [--models-dir DIR] [--shared DIR] [--profile auto|gpu|cpu] [--all | NAME ...]
//   VERBATIM_SETUP_MODELS=stand-ins skips the real models (CI).
import { join, resolve } from "node:path";
import { readCatalogue } from "../src/models/catalogue.ts";
import { installModel } from "../src/models/install.ts";

const root = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const modelsDir = resolve(option("--models-dir") ?? process.env.VERBATIM_MODELS_DIR ?? join(root, "models"));
const sharedDir = resolve(option("--shared") ?? join(root, "..", "shared", "models"));
const profileOption = option("--profile");
const all = args.includes("--all");
const names = args.filter((a) => !a.startsWith("--"));

const catalogue = await readCatalogue(join(root, "models", "catalogue.json"));
const unknown = names.filter((n) => !catalogue.some((e) => e.name === n));
if (unknown.length) {
  console.error(`unknown model(s): ${unknown.join(", ")}; known: ${catalogue.map((e) => e.name).join(", ")}`);
  process.exit(2);
}
const wanted = catalogue.filter((e) => (names.length ? names.includes(e.name) : all || e.default));

/** Whether `url`'s host answers within 5 s (a HEAD request; any HTTP status counts as an answer). */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(5000) });
    return true;
  } catch {
    return false;
  }
}

function hasNvidiaGpu(): boolean {
  try {
    return Bun.spawnSync(["nvidia-smi", "-L"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  } catch {
    return false;
  }
}

let failed = 0;
if (profileOption && process.env.VERBATIM_SETUP_MODELS !== "stand-ins") {
  const profile = profileOption === "auto" ? (hasNvidiaGpu() ? "gpu" : "cpu") : profileOption;
  const real = catalogue.filter((e) => e.profiles.includes(profile as "gpu" | "cpu") && e.url);
  if (!real.length) {
    console.error(`unknown profile: ${profileOption}`);
    process.exit(2);
  }
  // Each source host asked once: the ones that do not answer are skipped, in one line, not failed.
  const hosts = new Map<string, boolean>();
  for (const entry of real) {
    const host = new URL(entry.url!).host;
    if (!hosts.has(host)) hosts.set(host, await answers(entry.url!));
  }
  const reachable = real.filter((e) => hosts.get(new URL(e.url!).host));
  const skipped = real.filter((e) => !hosts.get(new URL(e.url!).host));
  if (skipped.length) {
    const silent = [...hosts].filter(([, ok]) => !ok).map(([host]) => host);
    console.log(
      `models: ${silent.join(", ")} ${silent.length === 1 ? "does" : "do"} not answer: ${skipped.map((e) => e.name).join(", ")} not installed; those roles run the development stand-ins (transcripts and reports not meaningful) until: verbatim models install --profile ${profile}, or verbatim models import`,
    );
  }
  if (reachable.length) console.log(`models: installing the ${profile} profile: ${reachable.map((e) => e.name).join(", ")}`);
  for (const entry of reachable) {
    try {
      let last = -1;
      const outcome = await installModel(modelsDir, entry, {
        localDirs: [sharedDir],
        onProgress: (done, total) => {
          const percent = total ? Math.floor((done / total) * 10) * 10 : -1;
          if (percent > last) console.log(`  ${entry.name}: ${(last = percent)}%`);
        },
      });
      console.log(`${outcome.padEnd(10)} ${entry.name} (${entry.path})`);
    } catch (error) {
      console.error(`FAILED     ${entry.name}: ${(error as Error).message}`);
      failed++;
    }
  }
}
for (const entry of wanted) {
  try {
    const outcome = await installModel(modelsDir, entry, { localDirs: [sharedDir] });
    console.log(`${outcome.padEnd(10)} ${entry.name} (${entry.path})`);
  } catch (error) {
    console.error(`FAILED     ${entry.name}: ${(error as Error).message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);

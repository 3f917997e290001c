// Installs the catalogue's models into models/ (or --models-dir): copied from ../shared/models when
// that folder exists beside the project, else downloaded from the entry's URL. Every file is checked
// against its size and sha256 before it is moved into place; nothing half-written is left behind.
//   bun scripts/install-models.ts [--models-dir DIR] [--shared DIR] [--all | NAME ...]
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readCatalogue, sha256File, verifyModelFile, type CatalogueEntry } from "../src/models/catalogue.ts";

const root = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const modelsDir = resolve(option("--models-dir") ?? process.env.VERBATIM_MODELS_DIR ?? join(root, "models"));
const sharedDir = resolve(option("--shared") ?? join(root, "..", "shared", "models"));
const all = args.includes("--all");
const names = args.filter((a) => !a.startsWith("--"));

const catalogue = await readCatalogue(join(root, "models", "catalogue.json"));
const unknown = names.filter((n) => !catalogue.some((e) => e.name === n));
if (unknown.length) {
  console.error(`unknown model(s): ${unknown.join(", ")}; known: ${catalogue.map((e) => e.name).join(", ")}`);
  process.exit(2);
}
const wanted = catalogue.filter((e) => (names.length ? names.includes(e.name) : all || e.default));

async function fetchInto(entry: CatalogueEntry, partial: string): Promise<string> {
  const shared = join(sharedDir, entry.path);
  if (existsSync(shared)) {
    copyFileSync(shared, partial);
    return `copied from ${shared}`;
  }
  if (!entry.url) {
    throw new Error(
      `${entry.name} is a synthetic model with no public download; put ../shared/models beside the project or regenerate it with ../shared/tools/synth-models`,
    );
  }
  const response = await fetch(entry.url, { signal: AbortSignal.timeout(30 * 60_000) });
  if (!response.ok || !response.body) throw new Error(`${entry.url} answered ${response.status}`);
  if (!entry.archive_member) {
    await Bun.write(partial, response);
    return `downloaded from ${entry.url}`;
  }
  const archive = `${partial}.tgz`;
  try {
    await Bun.write(archive, response);
    const tar = Bun.spawn(["tar", "-xzOf", archive, entry.archive_member], { stdout: Bun.file(partial), stderr: "pipe" });
    if ((await tar.exited) !== 0) throw new Error(`tar could not take ${entry.archive_member} out of ${entry.url}: ${await new Response(tar.stderr).text()}`);
  } finally {
    rmSync(archive, { force: true });
  }
  return `taken from ${entry.archive_member} of ${entry.url}`;
}

let failed = 0;
for (const entry of wanted) {
  const target = join(modelsDir, entry.path);
  if ((await verifyModelFile(modelsDir, entry)) === "ok") {
    console.log(`ok        ${entry.name} (${entry.path})`);
    continue;
  }
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  try {
    const how = await fetchInto(entry, partial);
    const size = Bun.file(partial).size;
    const sum = await sha256File(partial);
    if (size !== entry.bytes || sum !== entry.sha256) {
      throw new Error(`checksum mismatch: got ${size} bytes sha256 ${sum}, expected ${entry.bytes} bytes sha256 ${entry.sha256}`);
    }
    renameSync(partial, target);
    console.log(`installed ${entry.name} (${entry.path}), ${how}`);
  } catch (error) {
    rmSync(partial, { force: true });
    console.error(`FAILED    ${entry.name}: ${(error as Error).message}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);

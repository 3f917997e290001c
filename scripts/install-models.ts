// Installs the catalogue's default models into models/ (or --models-dir): copied from ../shared/models
// when that folder exists beside the project, else downloaded from the entry's URL. The same code as
// `verbatim models install` (src/models/install.ts): every file checked before it is moved into place.
//   bun scripts/install-models.ts [--models-dir DIR] [--shared DIR] [--all | NAME ...]
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
const all = args.includes("--all");
const names = args.filter((a) => !a.startsWith("--"));

const catalogue = await readCatalogue(join(root, "models", "catalogue.json"));
const unknown = names.filter((n) => !catalogue.some((e) => e.name === n));
if (unknown.length) {
  console.error(`unknown model(s): ${unknown.join(", ")}; known: ${catalogue.map((e) => e.name).join(", ")}`);
  process.exit(2);
}
const wanted = catalogue.filter((e) => (names.length ? names.includes(e.name) : all || e.default));

let failed = 0;
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

/**
 * The configuration file (--config, env VERBATIM_CONFIG): JSON or TOML, its keys the option names
 * without dashes ("data-dir", "egress-allow", ...). Validated with zod against the command's
 * options, so a misspelt key or a wrong type stops the start with a message naming the key.
 * Flags win over the environment, which wins over the file, which wins over the defaults.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { z } from "zod";
import { CONFIG_OPTION } from "../config-options.ts";
import { UsageError, type OptionSpec } from "./options.ts";

function schemaFor(specs: readonly OptionSpec[]) {
  const shape: Record<string, z.ZodType> = {};
  for (const spec of specs) {
    if (spec.name === CONFIG_OPTION.name) continue;
    shape[spec.name] =
      spec.type === "bool"
        ? z.boolean()
        : spec.type === "int"
          ? z.number().int().nonnegative()
          : z.union([z.string(), z.number().transform(String)]);
  }
  return z.strictObject(shape).partial();
}

/** The file's values as option texts, by option name. */
export function readConfigFile(path: string, specs: readonly OptionSpec[]): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`--config: cannot read ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = extname(path).toLowerCase() === ".json" ? JSON.parse(text) : Bun.TOML.parse(text);
  } catch (error) {
    throw new UsageError(`--config: ${path} is not valid ${extname(path).toLowerCase() === ".json" ? "JSON" : "TOML"}: ${(error as Error).message}`);
  }
  const result = schemaFor(specs).safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = issue.code === "unrecognized_keys" ? issue.keys[0] : issue.path.join(".");
    const why = issue.code === "unrecognized_keys" ? "is not an option of this command" : issue.message;
    throw new UsageError(`--config: ${path}: key "${key}" ${why}`);
  }
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.data)) if (value !== undefined) values[name] = String(value);
  return values;
}

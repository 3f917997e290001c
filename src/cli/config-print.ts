import { SERVE_OPTIONS } from "../config-options.ts";
import { serviceConfig } from "../config.ts";
import type { Command } from "./admin.ts";
import type { OptionSource, OptionValues } from "./options.ts";

/** Options whose values are secrets, shown as "****"; URLs have their password masked. */
const SECRET = /token|secret|password/;

function shown(name: string, value: OptionValues[string]): OptionValues[string] {
  if (value === undefined || value === "") return value;
  if (SECRET.test(name)) return "****";
  if (typeof value === "string" && /^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) {
    try {
      const url = new URL(value);
      if (url.password) url.password = "****";
      return url.toString();
    } catch {
      return "****";
    }
  }
  return value;
}

/**
 * `verbatim config print`: the configuration `serve` would run with, from the same flags,
 * environment and file, checked the same way, each value with where it came from; secrets masked.
 */
export const configPrintCommand: Command = {
  usage: "verbatim config print [--config FILE] [serve options]",
  summary: "Print the effective configuration of `serve` (flags, then environment, then --config file, then defaults) as JSON, secrets masked.",
  options: SERVE_OPTIONS,
  run(values, out, context) {
    serviceConfig(values); // the same checks as serve: a bad value stops here with its message
    const effective: Record<string, { value: OptionValues[string] | null; source: OptionSource }> = {};
    for (const spec of SERVE_OPTIONS) {
      effective[spec.name] = { value: shown(spec.name, values[spec.name]) ?? null, source: context?.sources.get(spec.name) ?? "default" };
    }
    out(JSON.stringify(effective, null, 2));
  },
};

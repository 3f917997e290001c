import type { OptionSpec } from "../lib/option-spec.ts";

export type { OptionSpec };

export type OptionValues = Record<string, string | number | boolean | undefined>;

export class UsageError extends Error {}

/** A command that cannot do its work for a reason the operator can fix: its message, no stack, exit 1. */
export class CommandFailed extends Error {}

/** Where an option's value came from. */
export type OptionSource = "flag" | "env" | "file" | "default";

/**
 * Parses `--name value`, `--name=value` and bare `--flag` (booleans). Precedence: flag, then
 * environment variable, then the configuration file (`fileValues`, see config-file.ts), then
 * default. Unknown flags and stray words are errors, not ignored. `sources` receives where each
 * value came from.
 */
export function parseOptions(
  argv: string[],
  specs: OptionSpec[],
  env: Record<string, string | undefined>,
  readFile?: (path: string) => Record<string, string>,
  sources?: Map<string, OptionSource>,
): OptionValues {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const raw = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument: ${arg}`);
    const [flag, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const spec = byName.get(flag);
    if (!spec) throw new UsageError(`unknown option: --${flag}`);
    if (inline !== undefined) raw.set(flag, inline);
    else if (spec.type === "bool") raw.set(flag, "true");
    else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`--${flag} needs a value`);
      raw.set(flag, value);
    }
  }
  const configPath = raw.get("config") ?? (byName.get("config")?.env ? env[byName.get("config")!.env!] : undefined);
  const file = configPath && readFile ? readFile(configPath) : {};
  const values: OptionValues = {};
  for (const spec of specs) {
    const fromEnv = spec.env ? env[spec.env] : undefined;
    const text = raw.get(spec.name) ?? fromEnv ?? file[spec.name] ?? spec.default;
    sources?.set(spec.name, raw.has(spec.name) ? "flag" : fromEnv !== undefined ? "env" : file[spec.name] !== undefined ? "file" : "default");
    if (text === undefined) {
      if (spec.required) throw new UsageError(`--${spec.name} is required`);
      continue;
    }
    values[spec.name] = convert(spec, text);
  }
  return values;
}

function convert(spec: OptionSpec, text: string): string | number | boolean {
  if (spec.type === "int") {
    if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${spec.name} must be a whole number, got ${JSON.stringify(text)}`);
    return Number(text);
  }
  if (spec.type === "bool") {
    const lower = text.trim().toLowerCase();
    if (["true", "1", "yes", "on"].includes(lower)) return true;
    if (["false", "0", "no", "off"].includes(lower)) return false;
    throw new UsageError(`--${spec.name} must be true or false, got ${JSON.stringify(text)}`);
  }
  return text;
}

export function renderHelp(usage: string, summary: string, specs: OptionSpec[], subcommands: [string, string][] = []): string {
  const lines = [`Usage: ${usage}`, "", summary];
  if (subcommands.length) {
    lines.push("", "Commands:");
    const width = Math.max(...subcommands.map(([n]) => n.length));
    for (const [name, text] of subcommands) lines.push(`  ${name.padEnd(width)}  ${text}`);
  }
  if (specs.length) {
    lines.push("", "Options:");
    for (const spec of specs) {
      const flag = `--${spec.name}${spec.type === "bool" ? "" : ` <${spec.valueName ?? spec.type}>`}`;
      const extras = [
        spec.env ? `env ${spec.env}` : "",
        spec.default !== undefined ? `default ${spec.default}` : "",
        spec.required ? "required" : "",
      ].filter(Boolean);
      lines.push(`  ${flag}`, `      ${spec.help}${extras.length ? ` (${extras.join("; ")})` : ""}`);
    }
  }
  lines.push("  --help", "      Show this help.");
  return lines.join("\n");
}

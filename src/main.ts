#!/usr/bin/env bun
// The one entry point: `verbatim serve` and `verbatim admin ...`, the same from source and compiled.
import { adminCommands, type Command } from "./cli/admin.ts";
import { readConfigFile } from "./cli/config-file.ts";
import { configPrintCommand } from "./cli/config-print.ts";
import { doctorCommand } from "./cli/doctor.ts";
import { modelCommands } from "./cli/models.ts";
import { CommandFailed, parseOptions, renderHelp, UsageError, type OptionSource } from "./cli/options.ts";
import { backupCommand, restoreCommand } from "./cli/backup.ts";
import { serveCommand } from "./cli/serve.ts";
import { OWNER_ONLY_UMASK } from "./storage/permissions.ts";
import { SERVICE_VERSION } from "./lib/version.ts";

const commands: Record<string, Command> = { serve: serveCommand, backup: backupCommand, restore: restoreCommand, "config print": configPrintCommand, doctor: doctorCommand };
for (const [name, command] of Object.entries(adminCommands)) commands[`admin ${name}`] = command;
for (const [name, command] of Object.entries(modelCommands)) commands[name] = command;

function groupHelp(prefix: string): string | undefined {
  const children = Object.entries(commands).filter(([name]) => prefix === "" || name.startsWith(`${prefix} `));
  if (!children.length) return undefined;
  return renderHelp(
    `verbatim ${prefix ? `${prefix} ` : ""}<command> [options]`,
    prefix ? `Verbatim ${prefix} commands.` : `Verbatim ${SERVICE_VERSION}: self-hosted meeting transcription and reporting.`,
    [],
    children.map(([name, c]) => [name, c.summary]),
  );
}

export async function main(argv: string[]): Promise<number> {
  // Everything the service, its workers (they inherit it) and the admin commands create in the
  // data dir is owner-only: recordings, decoded audio, the database, its WAL, keys.
  process.umask(OWNER_ONLY_UMASK);
  const out = (line: string) => console.log(line);
  const words: string[] = [];
  while (words.length < argv.length && !argv[words.length]!.startsWith("-")) words.push(argv[words.length]!);
  const rest = argv.slice(words.length);
  const wantsHelp = rest.includes("--help") || rest.includes("-h");

  // Started by the service's worker pool, never by hand: runs job steps in a separate process.
  if (argv[0] === "worker" && process.send) {
    const { runWorker } = await import("./worker/main.ts");
    await runWorker();
    return 0;
  }
  if (words.length === 0 && rest[0] === "--version") {
    out(SERVICE_VERSION);
    return 0;
  }
  // The longest run of words naming a command; the words after it fill its positional option.
  let used = words.length;
  while (used > 1 && !commands[words.slice(0, used).join(" ")]) used--;
  const name = words.slice(0, used).join(" ");
  const command = commands[name];
  const extra = words.slice(used);
  if (command && extra.length && !command.positional) {
    console.error(`verbatim ${name}: unexpected argument: ${extra[0]}\nSee: verbatim ${name} --help`);
    return 2;
  }
  if (!command) {
    const asked = words.join(" ");
    const help = groupHelp(asked);
    if (help) {
      out(help);
      return wantsHelp || words.length === 0 ? 0 : 2;
    }
    console.error(`unknown command: ${asked}\n\n${groupHelp("")}`);
    return 2;
  }
  if (wantsHelp) {
    out(renderHelp(command.usage, command.summary, command.options));
    return 0;
  }
  try {
    const sources = new Map<string, OptionSource>();
    const args = extra.length ? [`--${command.positional}=${extra.join(",")}`, ...rest] : rest;
    const values = parseOptions(args, command.options, process.env, (path) => readConfigFile(path, command.options), sources);
    await command.run(values, out, { sources });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`verbatim ${name}: ${error.message}\nSee: verbatim ${name} --help`);
      return 2;
    }
    if (error instanceof CommandFailed) {
      console.error(`verbatim ${name}: ${error.message}`);
      return 1;
    }
    console.error(`verbatim ${name}: ${(error as Error).stack ?? error}`);
    return 1;
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));

// The commands of the one executable (`verbatim serve`, `verbatim admin ...`, …): found by name, their
// options parsed from the command line, the environment and the configuration file (src/main.ts calls runCommand).
import { adminCommands, type Command } from "./admin.ts";
import { readConfigFile } from "./config-file.ts";
import { configPrintCommand } from "./config-print.ts";
import { doctorCommand } from "./doctor.ts";
import { modelCommands } from "./models.ts";
import { CommandFailed, parseOptions, renderHelp, UsageError, type OptionSource } from "./options.ts";
import { backupCommand, restoreCommand } from "./backup.ts";
import { serveCommand } from "./serve.ts";
import { SERVICE_VERSION } from "../lib/version.ts";

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

export async function runCommand(argv: string[]): Promise<number> {
  const out = (line: string) => console.log(line);
  const words: string[] = [];
  while (words.length < argv.length && !argv[words.length]!.startsWith("-")) words.push(argv[words.length]!);
  const rest = argv.slice(words.length);
  const wantsHelp = rest.includes("--help") || rest.includes("-h");

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


import type { OptionSource, OptionSpec, OptionValues } from "./options.ts";

/** One command of the command line (`verbatim admin user create`, `verbatim doctor`, ...). */
export interface Command {
  usage: string;
  summary: string;
  options: OptionSpec[];
  /** The option that words after the command name fill (joined by commas): `models install a b`. */
  positional?: string;
  /** `context.sources`: where each option's value came from (flag, env, file, default). */
  run(values: OptionValues, out: (line: string) => void, context?: { sources: Map<string, OptionSource> }): Promise<void> | void;
}

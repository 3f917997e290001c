/** A command-line option, also settable from an environment variable. */
export interface OptionSpec {
  name: string; // long flag without dashes: "data-dir"
  type: "string" | "int" | "bool";
  help: string;
  env?: string;
  default?: string;
  required?: boolean;
  valueName?: string;
}

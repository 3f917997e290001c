import { describe, expect, test } from "bun:test";
import { parseOptions, renderHelp, UsageError, type OptionSpec } from "./options.ts";

const specs: OptionSpec[] = [
  { name: "port", type: "int", env: "X_PORT", default: "8080", help: "port" },
  { name: "host", type: "string", help: "host" },
  { name: "json", type: "bool", help: "json" },
  { name: "email", type: "string", required: true, help: "email" },
];

describe("parseOptions", () => {
  test("flag beats environment beats default", () => {
    expect(parseOptions(["--email", "a@b"], specs, {}).port).toBe(8080);
    expect(parseOptions(["--email", "a@b"], specs, { X_PORT: "9000" }).port).toBe(9000);
    expect(parseOptions(["--email", "a@b", "--port=0"], specs, { X_PORT: "9000" }).port).toBe(0);
  });

  test("booleans take no value; --flag=false turns them off", () => {
    expect(parseOptions(["--json", "--email", "a@b"], specs, {}).json).toBe(true);
    expect(parseOptions(["--json=false", "--email", "a@b"], specs, {}).json).toBe(false);
  });

  test("unknown options, stray words, missing values and bad numbers are usage errors", () => {
    expect(() => parseOptions(["--nope", "--email", "a"], specs, {})).toThrow(UsageError);
    expect(() => parseOptions(["word", "--email", "a"], specs, {})).toThrow("unexpected argument");
    expect(() => parseOptions(["--email"], specs, {})).toThrow("needs a value");
    expect(() => parseOptions(["--email", "a", "--port", "x"], specs, {})).toThrow("whole number");
    expect(() => parseOptions([], specs, {})).toThrow("--email is required");
  });

  test("help lists every option with its environment variable and default", () => {
    const help = renderHelp("verbatim x", "Does x.", specs);
    expect(help).toContain("--port <int>");
    expect(help).toContain("env X_PORT; default 8080");
    expect(help).toContain("--help");
  });
});

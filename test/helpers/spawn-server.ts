// Starts a Verbatim server process and waits for its "Verbatim listening on URL" line: the one
// place the tests (test/helpers/server.ts) and the benchmarks (bench/*.ts) do that. No bun:test
// import here, so the benchmarks can use it outside a test run.
import { existsSync, readFileSync } from "node:fs";
import { readLines } from "../../src/lib/lines.ts";

// An appliance says "Verbatim listening on URL", an API node (--role api) "Verbatim API node listening on URL".
const LISTENING = /^Verbatim (?:API node )?listening on (https?:\/\/\S+)$/;

export interface SpawnServerOptions {
  /** The whole command line, e.g. [bun, "src/main.ts", "serve", "--port", "0", ...]. */
  command: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /**
   * Send stdout straight to this file instead of a pipe (bench/api.ts: the request log is really
   * written and the caller spends no CPU reading it). The file is then read back, every 50 ms, only
   * until the listening line; `stdout` holds the lines read up to then and does not grow after.
   */
  stdoutFile?: string;
  /** "inherit" passes the server's stderr through to this process's; default: collected in `stderr`. */
  stderr?: "pipe" | "inherit";
  /**
   * Called with each piped output line as it arrives. A string it returns is kept in place of the
   * line (to keep a secret out of the kept output and of the start-up error message).
   */
  onLine?: (line: string, stream: "stdout" | "stderr") => string | void;
  /** Keep at most this many lines per stream, the newest (default: all). */
  maxLines?: number;
  /** Longest wait for the listening line; the process is killed past it. Default 20 s. */
  timeoutMs?: number;
  /** What to call the process in error messages (default "server"). */
  name?: string;
  /**
   * The stdout line that says the process is up, instead of the listening line: a worker node
   * (--role worker) never listens. Its first group, if any, is taken as the URL ("" otherwise).
   */
  ready?: RegExp;
}

export interface SpawnedServer {
  /** From the listening line, e.g. http://127.0.0.1:41234. */
  url: string;
  proc: Bun.Subprocess<"ignore", "pipe" | null, "pipe" | "inherit">;
  /** Stdout lines so far (they keep coming in while the stream is piped). */
  stdout: string[];
  /** Stderr lines so far (empty with stderr "inherit"). */
  stderr: string[];
  /** Resolves once the piped streams are read to their end (i.e. after the process exits). */
  drained: Promise<void>;
}

/** Spawns `command` and resolves with its URL; rejects if it exits or times out first. */
export async function spawnServer(options: SpawnServerOptions): Promise<SpawnedServer> {
  const name = options.name ?? "server";
  const timeoutMs = options.timeoutMs ?? 20_000;
  const ready = options.ready ?? LISTENING;
  const proc = Bun.spawn(options.command, {
    cwd: options.cwd,
    env: options.env ? { ...process.env, ...options.env } : process.env,
    stdin: "ignore",
    stdout: options.stdoutFile ? Bun.file(options.stdoutFile) : "pipe",
    stderr: options.stderr ?? "pipe",
  }) as SpawnedServer["proc"];

  const stdout: string[] = [];
  const stderr: string[] = [];
  const keep = (into: string[], line: string, stream: "stdout" | "stderr") => {
    const replaced = options.onLine?.(line, stream);
    into.push(typeof replaced === "string" ? replaced : line);
    if (options.maxLines !== undefined && into.length > options.maxLines) into.shift();
  };
  let resolveUrl!: (url: string) => void;
  const listening = new Promise<string>((resolve) => (resolveUrl = resolve));

  const reading: Promise<void>[] = [];
  if (proc.stdout) {
    const stream = proc.stdout;
    reading.push(
      (async () => {
        for await (const line of readLines(stream)) {
          keep(stdout, line, "stdout");
          const match = ready.exec(line);
          if (match) resolveUrl(match[1] ?? "");
        }
      })(),
    );
  }
  if (proc.stderr) {
    const stream = proc.stderr;
    reading.push(
      (async () => {
        for await (const line of readLines(stream)) keep(stderr, line, "stderr");
      })(),
    );
  }
  const drained = Promise.all(reading).then(() => undefined);

  // With stdout in a file: read the file back until the listening line shows (or we give up).
  let polling = true;
  if (options.stdoutFile) {
    const file = options.stdoutFile;
    void (async () => {
      while (polling) {
        const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : [];
        const at = lines.findIndex((line) => ready.test(line));
        if (at >= 0) {
          for (const line of lines.slice(0, at + 1)) keep(stdout, line, "stdout");
          resolveUrl(ready.exec(lines[at]!)![1] ?? "");
          return;
        }
        await Bun.sleep(50);
      }
    })();
  }

  const output = () => {
    const out = options.stdoutFile && !stdout.length && existsSync(options.stdoutFile) ? readFileSync(options.stdoutFile, "utf8").split("\n") : stdout;
    return [...out.slice(-40), ...stderr.slice(-40)].join("\n");
  };
  let timer: Timer | undefined;
  try {
    return {
      url: await Promise.race([
        listening,
        proc.exited.then((code) => {
          throw new Error(`${name} exited with ${code} before listening:\n${output()}`);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            proc.kill("SIGKILL");
            reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${output()}`));
          }, timeoutMs);
        }),
      ]),
      proc,
      stdout,
      stderr,
      drained,
    };
  } finally {
    polling = false;
    clearTimeout(timer);
  }
}

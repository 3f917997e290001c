/**
 * Bundles a client island into one minified script. Imported `with { type: "macro" }`, so it runs
 * when the server's source is transpiled (from source) or compiled (`bun build --compile`): the
 * script is a string inside the executable, and nothing is built at run time. A macro may not call
 * Bun.build (the bundler would wait on itself), so it runs Bun's CLI.
 */
export function bundleIsland(entry: string): string {
  const path = new URL(entry, import.meta.url).pathname;
  const built = Bun.spawnSync([process.execPath, "build", path, "--target=browser", "--format=esm", "--minify"], { stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`island ${entry} failed to build: ${built.stderr.toString()}`);
  return built.stdout.toString();
}

// docker/entrypoint.sh outside Docker (issue 13): Docker cannot run here, so its logic runs with a
// stand-in executable that records how it was called.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-entrypoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const calls = join(dir, "calls");
const fake = join(dir, "verbatim");
writeFileSync(fake, `#!/bin/sh\necho "$*" >> ${calls}\n[ "$1" = models ] && [ "$FAIL_INSTALL" = 1 ] && exit 1\nexit 0\n`);
chmodSync(fake, 0o755);

function run(args: string[], env: Record<string, string> = {}) {
  rmSync(calls, { force: true });
  const result = Bun.spawnSync(["sh", join(ROOT, "docker/entrypoint.sh"), ...args], { env: { PATH: "/usr/bin:/bin", VERBATIM_BIN: fake, ...env }, stdout: "pipe", stderr: "pipe" });
  const log = (() => {
    try {
      return readFileSync(calls, "utf8").trim().split("\n");
    } catch {
      return [];
    }
  })();
  return { code: result.exitCode, log, stderr: result.stderr.toString() };
}

test("no arguments: serve", () => {
  expect(run([])).toMatchObject({ code: 0, log: ["serve"] });
});

test("VERBATIM_INSTALL_MODELS installs that profile first, then runs the command", () => {
  expect(run(["serve", "--port", "9000"], { VERBATIM_INSTALL_MODELS: "gpu" })).toMatchObject({ code: 0, log: ["models install --profile gpu", "serve --port 9000"] });
});

test("a failed install stops the container rather than serving without models; a bad profile is refused", () => {
  const failed = run([], { VERBATIM_INSTALL_MODELS: "cpu", FAIL_INSTALL: "1" });
  expect(failed.code).not.toBe(0);
  expect(failed.log).toEqual(["models install --profile cpu"]);
  const bad = run([], { VERBATIM_INSTALL_MODELS: "tpu" });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("must be gpu or cpu");
});

test("the Dockerfile runs as a non-root user, uses the archive and the entrypoint, and checks /readyz", () => {
  const dockerfile = readFileSync(join(ROOT, "Dockerfile.cuda"), "utf8");
  expect(dockerfile).toMatch(/^USER verbatim$/m);
  expect(dockerfile).toContain("scripts/package.sh cuda");
  expect(dockerfile).toContain('ENTRYPOINT ["/opt/verbatim/entrypoint.sh"]');
  expect(dockerfile).toMatch(/HEALTHCHECK .*\/readyz/);
  expect(dockerfile).toContain('VOLUME ["/data", "/models"]');
});

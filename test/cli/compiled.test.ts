import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, runCli, startServer, type TestServer } from "../helpers/server.ts";

// The same entry point compiled into one executable, as shipped: migrations and every
// subcommand must work from it with no source tree beside it.
const outDir = mkdtempSync(join(tmpdir(), "verbatim-bin-"));
const binary = join(outDir, "verbatim");
let server: TestServer;

beforeAll(async () => {
  const build = Bun.spawnSync(
    [BUN, "build", "--compile", "--compile-exec-argv=--max-http-header-size=65536", join(ROOT, "src/main.ts"), "--outfile", binary],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  if (build.exitCode !== 0) throw new Error(`bun build --compile failed: ${build.stderr}`);
  server = await startServer({ command: [binary] });
});

afterAll(async () => {
  await server?.stop();
  rmSync(outDir, { recursive: true, force: true });
});

test("the compiled executable prints the same help as the source", async () => {
  const fromBinary = await runCli(["serve", "--help"], [binary]);
  const fromSource = await runCli(["serve", "--help"]);
  expect(fromBinary.code).toBe(0);
  expect(fromBinary.stdout).toBe(fromSource.stdout);
});

test("the compiled executable migrates, bootstraps and serves the API", async () => {
  const me = await server.api("/api/v1/me", { key: server.adminKey });
  expect(me.status).toBe(200);
  const ready = (await (await server.api("/readyz")).json()) as any;
  expect(ready.checks.migrations).toMatchObject({ ready: true, detail: "applied" });
});

test("admin commands of the compiled executable work on the running server's data dir", async () => {
  const user = await server.admin("user", "create", "--email", "bin@example.com", "--json");
  expect(user.code).toBe(0);
  const key = await server.admin("key", "create", "--email", "bin@example.com", "--name", "k", "--scopes", "all", "--json");
  expect(key.code).toBe(0);
  const response = await server.api("/api/v1/me", { key: JSON.parse(key.stdout).key });
  expect(((await response.json()) as any).user.email).toBe("bin@example.com");
});

test("the compiled executable answers oversized headers with its own problem+json 431", async () => {
  const response = await server.api("/api/v1/me", { headers: { "X-Big": "x".repeat(20_000) } });
  expect(response.status).toBe(431);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
});

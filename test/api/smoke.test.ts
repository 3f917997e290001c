import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, BUN_FLAGS, expectRateHeaders, ROOT, startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

test("the first start creates admin@localhost with an all-scopes key that works at once", async () => {
  expect(server.adminKey).toMatch(/^vb_live_[0-9A-Za-z]{32,}$/);
  const response = await server.api("/api/v1/me", { key: server.adminKey });
  expect(response.status).toBe(200);
  expectRateHeaders(response);
  const body = (await response.json()) as any;
  expect(body.user.email).toBe("admin@localhost");
  expect(body.credential.scopes).toHaveLength(7);
});

test("SIGTERM stops the server cleanly with exit code 0", async () => {
  const other = await startServer();
  expect(await other.stop("SIGTERM")).toBe(0);
  expect(other.lines).toContain("stopped");
});

test("a second server on the same data dir exits at once, non-zero, saying the data dir is in use", async () => {
  const first = await startServer();
  try {
    const second = Bun.spawn([BUN, ...BUN_FLAGS, join(ROOT, "src/main.ts"), "serve", "--port", "0", "--data-dir", first.dataDir], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([second.exited, new Response(second.stdout).text(), new Response(second.stderr).text()]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`verbatim serve: the data dir ${first.dataDir} is in use by another running Verbatim server; stop it first, or give this one another --data-dir`);
    // "At once": it refused before it opened anything (no listening line, no migration, no key);
    // not a wall-clock bound, which the loaded CI machine broke (9.8 s with both runs side by side).
    expect(stdout).not.toContain("listening");
    expect(stdout).not.toContain("vb_live_");
    // The first one is unharmed.
    expect((await first.api("/api/v1/me", { key: first.adminKey })).status).toBe(200);
  } finally {
    await first.stop();
  }
});

test("after kill -9 of a server, a new one starts on its data dir (the OS dropped the lock)", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-lock-"));
  try {
    const first = await startServer({ dataDir });
    await first.stop("SIGKILL");
    const second = await startServer({ dataDir });
    expect((await second.api("/healthz")).status).toBe(200);
    await second.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

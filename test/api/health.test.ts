import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

test("/readyz tells an anonymous caller only whether the service is ready", async () => {
  const response = await server.api("/readyz");
  expect(response.status).toBe(200);
  const body = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["ready", "status"]);
  expect(body.ready).toBe(true);
  // Neither a model name, an ffmpeg version nor a folder of the server.
  const text = JSON.stringify(body);
  expect(text).not.toContain("ffmpeg");
  expect(text).not.toContain(server.dataDir);
});

test("/readyz with an invalid credential is still the anonymous answer", async () => {
  const body = (await (await server.api("/readyz", { key: "vb_live_" + "x".repeat(40) })).json()) as Record<string, unknown>;
  expect(body.checks).toBeUndefined();
});

test("/readyz with a valid credential details every check", async () => {
  const body = (await (await server.api("/readyz", { key: server.adminKey })).json()) as {
    checks: Record<string, { ready: boolean; detail: string; required: boolean }>;
  };
  expect(Object.keys(body.checks).sort()).toEqual(["database", "ffmpeg", "migrations", "models"]);
  expect(body.checks.database).toEqual({ ready: true, detail: "open", required: true });
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { expectRateHeaders, startServer, type TestServer } from "../helpers/server.ts";

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

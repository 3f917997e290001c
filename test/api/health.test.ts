import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { onPostgres } from "../support/postgres.ts";

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
  // On PostgreSQL the workers may be other machines, so the node also says how many answer.
  expect(Object.keys(body.checks).sort()).toEqual(onPostgres ? ["database", "ffmpeg", "migrations", "models", "workers"] : ["database", "ffmpeg", "migrations", "models"]);
  expect(body.checks.database).toEqual({ ready: true, detail: "open", required: true });
  // This server (--role all) is itself the one worker node alive.
  if (onPostgres) expect(body.checks.workers).toEqual({ ready: true, detail: "1 worker node(s) alive", required: false });
});

test.skipIf(!onPostgres)("an API node with no worker node alive is still ready (uploads wait in the queue) and says so", async () => {
  const api = await startServer({ args: ["--role", "api"] });
  try {
    const anonymous = await api.api("/readyz");
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: "degraded", ready: true });
    const body = (await (await api.api("/readyz", { key: api.adminKey })).json()) as any;
    expect(body.checks.workers).toEqual({ ready: false, detail: "0 worker nodes alive: jobs wait in the queue until one starts", required: false });
    expect(body.checks.database.detail).toBe("open");
    // Never the database URL, whoever asks.
    expect(JSON.stringify(body)).not.toContain(new URL(api.databaseUrl!).host);
  } finally {
    await api.stop();
  }
});

// Bounded request memory (issue 8, item 4): JSON bodies are read as streams and refused at their
// limit, and nesting is bounded, whatever the client sends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { expectProblem, startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ args: ["--rate-limits", "pro=100000,anonymous=100000"] });
});
afterAll(async () => {
  await server.stop();
});

/** The server process's memory: current and peak resident set, in MiB. */
function memory(of: TestServer): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${of.process.pid}/status`, "utf8");
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]) / 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

/** A body of `totalBytes` that the client generates as it goes: chunked, no Content-Length. */
function endlessJson(totalBytes: number): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode("x".repeat(256 * 1024));
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"message":"'));
      if (sent >= totalBytes) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

describe("a 64 MiB chunked body to a JSON endpoint", () => {
  const json = { "Content-Type": "application/json" };
  const endpoints: [string, string][] = [
    ["POST", "/api/v1/feedback"],
    ["POST", "/api/v1/meetings"],
    ["PATCH", "/api/v1/meetings/00000000-0000-4000-8000-000000000000"],
  ];
  for (const [method, path] of endpoints) {
    test(`${method} ${path} is 413 request_too_large, and server memory stays flat`, async () => {
      // A server of its own, so the peak is this endpoint's alone.
      const own = await startServer();
      try {
        // Warm the path once, so its code and buffers are already counted.
        await own.api(path, { method, key: own.adminKey, headers: json, body: endlessJson(2 * 1024 * 1024) });
        const before = memory(own);
        for (let i = 0; i < 3; i++) {
          const response = await own.api(path, { method, key: own.adminKey, headers: json, body: endlessJson(64 * 1024 * 1024) });
          await expectProblem(response, 413, "request_too_large");
        }
        const after = memory(own);
        // Buffering even one 64 MiB body would lift the peak by 64 MiB or more.
        expect(after.peak - before.peak).toBeLessThan(16);
      } finally {
        await own.stop();
      }
    }, 60_000);
  }
});

describe("nesting depth", () => {
  const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

  test("metadata nested 60,000 levels in a JSON body is 400 validation_error, never a 500", async () => {
    const body = `{"audio_url":"https://example.com/a.mp3","metadata":{"a":${deep(60_000)}}}`;
    const response = await server.api("/api/v1/meetings", { method: "POST", key: server.adminKey, headers: { "Content-Type": "application/json" }, body });
    const problem = (await expectProblem(response, 400, "validation_error")) as any;
    expect(problem.errors).toEqual([expect.objectContaining({ field: "body", code: "too_deep" })]);
  });

  test("metadata nested 20,000 levels in a multipart field (under the 64 KiB field limit) is 400 validation_error on that field", async () => {
    const form = new FormData();
    form.append("metadata", `{"a":${deep(20_000)}}`);
    form.append("file", new Blob([new Uint8Array(1000)]), "a.wav");
    const response = await server.api("/api/v1/meetings", { method: "POST", key: server.adminKey, body: form });
    const problem = (await expectProblem(response, 400, "validation_error")) as any;
    expect(problem.errors).toEqual([expect.objectContaining({ field: "metadata", code: "too_deep" })]);
  });

  test("ordinary nesting is still accepted", async () => {
    const response = await server.api("/api/v1/feedback", {
      method: "POST",
      key: server.adminKey,
      json: { type: "question", message: "nested metadata is fine" },
    });
    expect(response.status).toBe(201);
  });
});

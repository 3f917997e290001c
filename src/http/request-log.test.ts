import { expect, test } from "bun:test";
import { RequestLog, type LogSink } from "./request-log.ts";

function memorySink() {
  const writes: string[] = [];
  const sink: LogSink = { write: (s) => writes.push(s), flush: () => {} };
  return { sink, writes };
}

const entry = { request_id: "req_1", method: "GET", path: "/api/v1/me", status: 200, duration_ms: 0.4, credential: "key:1" };

test("buffers lines until flushed, then writes them as JSON lines", () => {
  const { sink, writes } = memorySink();
  const log = new RequestLog(sink);
  log.record(entry, 0);
  log.record({ ...entry, request_id: "req_2" }, 0);
  expect(writes).toHaveLength(0);
  log.flush();
  expect(writes).toHaveLength(1);
  const lines = writes[0]!.trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.map((l) => l.request_id)).toEqual(["req_1", "req_2"]);
  expect(lines[0]).toMatchObject({ time: "1970-01-01T00:00:00.000Z", level: "info", msg: "request", status: 200 });
});

test("flushes on its own when the buffer is full", () => {
  const { sink, writes } = memorySink();
  const log = new RequestLog(sink, 10_000, 300);
  for (let i = 0; i < 5; i++) log.record(entry);
  expect(writes.length).toBeGreaterThan(0);
});

test("a line is valid JSON whatever the client put in the method and path", () => {
  const { sink, writes } = memorySink();
  const log = new RequestLog(sink);
  const path = '/api/v1/"quoted"\\back\nline\u2028';
  log.record({ ...entry, method: 'GE"T', path, credential: null, duration_ms: 12.345 }, Date.UTC(2026, 0, 2, 3, 4, 5, 6));
  log.flush();
  const line = JSON.parse(writes[0]!.trim());
  expect(line).toEqual({
    time: "2026-01-02T03:04:05.006Z",
    level: "info",
    msg: "request",
    request_id: "req_1",
    method: 'GE"T',
    path,
    status: 200,
    duration_ms: 12.345,
    credential: null,
  });
});

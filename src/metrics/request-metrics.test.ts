import { expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "prom-client";
import { REQUEST_BUCKETS, RequestMetrics } from "./request-metrics.ts";

const observations: [string, string, number, number][] = [
  ["GET", "/api/v1/me", 200, 0.0004],
  ["GET", "/api/v1/me", 200, 0.001], // on a bound: counted in that bound's bucket
  ["GET", "/api/v1/me", 429, 0.003],
  ["POST", "/api/v1/meetings", 202, 1.7],
  ["DELETE", "/api/v1/me", 405, 0.002], // a second method on a route already seen: its own series
  ["GET", 'unmatched"\\', 404, 75], // past the last bound; a label value that needs escaping
];

test("renders exactly what prom-client's own Counter and Histogram render for the same requests", async () => {
  const ours = new Registry();
  const metrics = new RequestMetrics();
  metrics.register(ours);

  const reference = new Registry();
  const counter = new Counter({ name: "verbatim_http_requests_total", help: "HTTP requests by method, route pattern and status.", labelNames: ["method", "route", "status"], registers: [reference] });
  const histogram = new Histogram({
    name: "verbatim_http_request_duration_seconds",
    help: "Time from the request's arrival to its response, by method and route pattern.",
    labelNames: ["method", "route"],
    buckets: REQUEST_BUCKETS,
    registers: [reference],
  });
  for (const [method, route, status, seconds] of observations) {
    metrics.observe(method, route, status, seconds);
    counter.inc({ method, route, status: String(status) });
    histogram.observe({ method, route }, seconds);
  }
  const text = await ours.metrics();
  expect(text).toBe(await reference.metrics());
  expect(text).toContain('verbatim_http_requests_total{method="GET",route="/api/v1/me",status="200"} 2');
  expect(text).toContain('verbatim_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/api/v1/me"} 2');
});

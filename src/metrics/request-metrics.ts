/**
 * HTTP request counts (by method, route pattern and status) and latency (by method and route
 * pattern), counted on the request path in plain numbers and handed to prom-client's registry as
 * two metrics it renders like its own counter and histogram.
 *
 * Why not prom-client's Counter and Histogram: they hash the label set on every call, children
 * included, which made metrics about a tenth of a GET /v1/me request (bench/api.ts, issue 13).
 * Here a request costs three Map lookups by keys it already holds (the route pattern, the method,
 * the status: no key string is built) and a bucket search over 13 bounds; the exposition format
 * stays prom-client's (Registry.registerMetric takes any object with get()).
 */
import type { Registry } from "prom-client";

export const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

interface CountSeries {
  labels: { method: string; route: string; status: string };
  value: number;
}

interface LatencySeries {
  labels: { method: string; route: string };
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** One route pattern and method: its latency, and its count per status. */
interface RouteSeries {
  latency: LatencySeries;
  counts: Map<number, CountSeries>;
}

export class RequestMetrics {
  private readonly counts: CountSeries[] = [];
  private readonly latencies: LatencySeries[] = [];
  /** Route pattern, then method. */
  private readonly routes = new Map<string, Map<string, RouteSeries>>();

  constructor(
    private readonly countName = "verbatim_http_requests_total",
    private readonly latencyName = "verbatim_http_request_duration_seconds",
  ) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.routes.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (!series) {
      series = {
        latency: { labels: { method, route }, buckets: new Float64Array(REQUEST_BUCKETS.length + 1), sum: 0, count: 0 },
        counts: new Map(),
      };
      this.latencies.push(series.latency);
      byMethod.set(method, series);
    }
    let count = series.counts.get(status);
    if (!count) {
      count = { labels: { method, route, status: String(status) }, value: 0 };
      this.counts.push(count);
      series.counts.set(status, count);
    }
    count.value += 1;

    const latency = series.latency;
    let bucket = 0;
    while (bucket < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[bucket]!) bucket++;
    latency.buckets[bucket]! += 1;
    latency.sum += seconds;
    latency.count += 1;
  }

  /** Registers both metrics with a prom-client registry. */
  register(registry: Registry): void {
    const counts = this.counts;
    const latencies = this.latencies;
    registry.registerMetric({
      name: this.countName,
      help: "HTTP requests by method, route pattern and status.",
      type: "counter",
      aggregator: "sum",
      get: async () => ({
        name: this.countName,
        help: "HTTP requests by method, route pattern and status.",
        type: "counter",
        aggregator: "sum",
        values: counts.map((series): MetricValue => ({ labels: series.labels, value: series.value })),
      }),
    } as never);
    const name = this.latencyName;
    registry.registerMetric({
      name,
      help: "Time from the request's arrival to its response, by method and route pattern.",
      type: "histogram",
      aggregator: "sum",
      get: async () => ({
        name,
        help: "Time from the request's arrival to its response, by method and route pattern.",
        type: "histogram",
        aggregator: "sum",
        values: latencies.flatMap((series) => {
          const values: MetricValue[] = [];
          let cumulative = 0;
          REQUEST_BUCKETS.forEach((bound, i) => {
            cumulative += series.buckets[i]!;
            values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: `${name}_bucket` });
          });
          values.push({ labels: { le: "+Inf", ...series.labels }, value: series.count, metricName: `${name}_bucket` });
          values.push({ labels: series.labels, value: series.sum, metricName: `${name}_sum` });
          values.push({ labels: series.labels, value: series.count, metricName: `${name}_count` });
          return values;
        }),
      }),
    } as never);
  }
}

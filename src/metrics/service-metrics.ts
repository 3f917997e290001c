/**
 * The service's Prometheus metrics (prom-client, its own registry): requests by route pattern and
 * status with their latency, jobs queued and running by kind, step durations, worker processes
 * started and crashed and their memory, webhook delivery outcomes, and the process's own figures.
 * Values owned elsewhere (the database, the worker pool, the delivery thread) are read at scrape
 * time, so nothing on the request path does more than one counter increment and one observation.
 */
import { readFileSync } from "node:fs";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Conn } from "../db/conn.ts";
import { RequestMetrics } from "./request-metrics.ts";
import { rootOf } from "../db/conn.ts";
import { deliveriesDue, jobsInFlight, jobsPerNode, oldestQueued, queueMessages } from "./store.ts";

/** The kinds of job there are: each gets its series even at 0, so a dashboard sees them from the start. */
const JOB_KINDS = ["meeting_processing", "document_generation"] as const;

export interface MetricsSources {
  conn: Conn;
  /** Milliseconds since the epoch (the jobs' ages). */
  now(): number;

  workers(): { started: number; crashed: number; pids: number[] };
  webhooks(): { succeeded: number; failedAttempts: number; failed: number; endpointsDisabled: number };
}

export interface ServiceMetrics {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeStep(kind: string, step: string, outcome: string, seconds: number): void;
  /** One Argon2 password verification ran (sign-in or a password change), matched or not. */
  countPasswordVerification(matched: boolean): void;
  /** The text exposition format, and its content type. */
  render(): Promise<{ body: string; contentType: string }>;
}

/** Resident memory of a process, from /proc (Linux); undefined when it is gone. */
function residentBytes(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** A counter that mirrors a total kept elsewhere: it is raised by what the total grew since last read. */
function mirrored(counter: Counter<string>, labels: Record<string, string>) {
  let seen = 0;
  return (total: number) => {
    if (total > seen) counter.inc(labels, total - seen);
    seen = Math.max(seen, total);
  };
}

export function createServiceMetrics(sources: MetricsSources): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "verbatim_" });

  const requests = new RequestMetrics();
  requests.register(registry);
  const steps = new Histogram({
    name: "verbatim_job_step_duration_seconds",
    help: "Job steps by kind, step and outcome (done, failed, canceled).",
    labelNames: ["kind", "step", "outcome"],
    buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [registry],
  });
  new Gauge({
    name: "verbatim_jobs",
    help: "Jobs queued or running, by kind and status.",
    labelNames: ["kind", "status"],
    registers: [registry],
    async collect() {
      const rows = await jobsInFlight(sources.conn);
      this.reset();
      for (const kind of JOB_KINDS) for (const status of ["queued", "processing"]) this.set({ kind, status }, 0);
      for (const row of rows) this.set({ kind: row.kind, status: row.status }, row.n);
    },
  });
  new Gauge({
    name: "verbatim_job_oldest_queued_seconds",
    help: "Age of the oldest queued job of each kind, in seconds since it was created (0 when none waits).",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      const rows = await oldestQueued(sources.conn, sources.now());
      this.reset();
      for (const kind of JOB_KINDS) this.set({ kind }, 0);
      for (const row of rows) this.set({ kind: row.kind }, row.seconds);
    },
  });
  new Gauge({
    name: "verbatim_node_jobs_running",
    help: "Jobs running on each node (the jobs' lease owner), every live worker node listed; node is its id, hostname its machine.",
    labelNames: ["node", "hostname"],
    registers: [registry],
    async collect() {
      const rows = await jobsPerNode(sources.conn, sources.now());
      this.reset();
      for (const row of rows) this.set({ node: row.node, hostname: row.hostname }, row.n);
    },
  });
  if (rootOf(sources.conn).dialect === "postgres") {
    new Gauge({
      name: "verbatim_job_queue_messages",
      help: "pg-boss's messages per queue (job kind) and state: queued (created or retry: waiting for a worker node) or active (held by one).",
      labelNames: ["kind", "state"],
      registers: [registry],
      async collect() {
        const rows = await queueMessages(sources.conn, JOB_KINDS);
        this.reset();
        for (const kind of JOB_KINDS) for (const state of ["queued", "active"]) this.set({ kind, state }, 0);
        for (const row of rows) this.set({ kind: row.kind, state: row.state }, row.n);
      },
    });
  }

  const workersStarted = new Counter({ name: "verbatim_worker_processes_started_total", help: "Worker processes started (the first ones and every replacement).", registers: [registry] });
  const workersCrashed = new Counter({ name: "verbatim_worker_crashes_total", help: "Worker processes that died during a step.", registers: [registry] });
  const syncStarted = mirrored(workersStarted, {});
  const syncCrashed = mirrored(workersCrashed, {});
  new Gauge({
    name: "verbatim_worker_resident_memory_bytes",
    help: "Resident memory of each live worker process.",
    labelNames: ["pid"],
    registers: [registry],
    collect() {
      this.reset();
      const stats = sources.workers();
      syncStarted(stats.started);
      syncCrashed(stats.crashed);
      for (const pid of stats.pids) {
        const bytes = residentBytes(pid);
        if (bytes !== undefined) this.set({ pid: String(pid) }, bytes);
      }
    },
  });

  const deliveries = new Counter({
    name: "verbatim_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts by outcome: succeeded, failed_attempt (to be retried or final), failed (gave up), endpoint_disabled.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const sync = {
    succeeded: mirrored(deliveries, { outcome: "succeeded" }),
    failedAttempts: mirrored(deliveries, { outcome: "failed_attempt" }),
    failed: mirrored(deliveries, { outcome: "failed" }),
    endpointsDisabled: mirrored(deliveries, { outcome: "endpoint_disabled" }),
  };
  new Gauge({
    name: "verbatim_webhook_deliveries_due",
    help: "Webhook deliveries waiting for their next attempt.",
    registers: [registry],
    async collect() {
      const counters = sources.webhooks();
      sync.succeeded(counters.succeeded);
      sync.failedAttempts(counters.failedAttempts);
      sync.failed(counters.failed);
      sync.endpointsDisabled(counters.endpointsDisabled);
      this.set(await deliveriesDue(sources.conn));
    },
  });

  const verifications = new Counter({
    name: "verbatim_password_verifications_total",
    help: "Argon2 password verifications run (web sign-in and password changes), by outcome: matched or wrong. Attempts refused by the throttle or the bounds on verifications in flight run none.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  verifications.inc({ outcome: "matched" }, 0);
  verifications.inc({ outcome: "wrong" }, 0);

  return {
    countPasswordVerification(matched) {
      verifications.inc({ outcome: matched ? "matched" : "wrong" });
    },
    observeRequest(method, route, status, seconds) {
      requests.observe(method, route, status, seconds);
    },
    observeStep(kind, step, outcome, seconds) {
      steps.observe({ kind, step, outcome }, seconds);
    },
    async render() {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

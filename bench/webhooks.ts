#!/usr/bin/env bun
/**
 * A webhook storm (issue 11): N events (default 10,000) for an account with 3 endpoints, one of
 * them down (nothing listens on its port), delivered by a real server to HTTPS receivers on
 * loopback. Prints deliveries per second to the healthy receivers, how many arrived more than
 * once, the API's p50/p99 latency (GET /api/v1/me, one request at a time) before and during the
 * storm (measured from a process of its own), and the server's peak memory. Speed is reported,
 * not asserted.
 *
 *   bun bench/webhooks.ts [--events 10000]
 *
 * The events are written straight into the events table (as jobs emit them, in bulk), so the
 * figure is the delivery machinery's, not the pipeline's.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_VERSION } from "../src/lib/version.ts";
import { spawnServer } from "../test/helpers/spawn-server.ts";
import { LOOPBACK_CA_FILE, startReceiver } from "../test/support/webhook-receiver.ts";
import { procStatusBytes } from "./lib/generated-upload.ts";

const ROOT = join(import.meta.dir, "..");
const eventsIndex = process.argv.indexOf("--events");
const EVENTS = eventsIndex > 0 ? Number(process.argv[eventsIndex + 1]) : 10_000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Starts the latency probe in its own process; the returned function stops it and gives its timings. */
function probeLatency(url: string, key: string): () => Promise<number[]> {
  const probe = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "latency-probe.ts"), url, key], { stdin: "pipe", stdout: "pipe" });
  return async () => {
    probe.stdin.end();
    return JSON.parse(await new Response(probe.stdout).text()) as number[];
  };
}

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-hooks-"));
const healthy = [startReceiver(), startReceiver()];
// A port nothing listens on: connection refused, as a receiver that is down.
const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
const downUrl = `https://127.0.0.1:${probe.port}/down`;
probe.stop(true);

const { url, proc, stdout } = await spawnServer({
  command: [process.execPath, "--max-http-header-size=65536", join(ROOT, "src/main.ts"), "serve", "--port", "0", "--data-dir", dataDir,
    "--rate-limits", "pro=1000000000", "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE, "--log-requests=false"],
  cwd: ROOT,
  env: {},
});
const key = stdout.map((line) => /^\s+(vb_live_\w+)$/.exec(line)?.[1]).find(Boolean)!;
try {
  for (const target of [...healthy.map((r) => r.url), downUrl]) {
    const response = await fetch(`${url}/api/v1/webhook_endpoints`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: target, events: ["*"] }),
    });
    if (response.status !== 201) throw new Error(`endpoint creation: ${response.status} ${await response.text()}`);
  }
  const stopBaseline = probeLatency(url, key);
  await Bun.sleep(5000);
  const baseline = await stopBaseline();

  // The events, as the jobs would have emitted them.
  const sqlite = new Database(join(dataDir, "verbatim.db"));
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const userId = (sqlite.query("SELECT id FROM users LIMIT 1").get() as { id: string }).id;
  const insert = sqlite.prepare("INSERT INTO events (id, user_id, type, api_version, payload, meeting_id, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)");
  const started = performance.now();
  sqlite.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const id = `evt_bench${String(i).padStart(8, "0")}`;
      const created = new Date().toISOString();
      const payload = JSON.stringify({ id, object: "event", type: "processing.completed", created, api_version: API_VERSION, livemode: true, data: { object: { id: `job_${i}`, object: "job", status: "completed", metadata: { n: i } } } });
      insert.run(id, userId, "processing.completed", API_VERSION, payload, Date.now());
    }
  })();
  sqlite.close();

  const stopStorm = probeLatency(url, key);
  const deadline = Date.now() + 15 * 60_000;
  while (healthy.some((r) => r.received.length < EVENTS) && Date.now() < deadline) await Bun.sleep(100);
  const seconds = (performance.now() - started) / 1000;
  const storm = await stopStorm();
  const peak = procStatusBytes(proc.pid!, "VmHWM") / 1024 / 1024;

  const duplicates = healthy.map((r) => {
    const ids = r.received.map((x) => x.headers.get("verbatim-event-id"));
    return ids.length - new Set(ids).size;
  });
  const delivered = healthy.reduce((sum, r) => sum + new Set(r.received.map((x) => x.headers.get("verbatim-event-id"))).size, 0);
  console.log(`# Webhook storm: ${EVENTS} events, 3 endpoints (one down), bun ${Bun.version}\n`);
  console.log("| figure | value |");
  console.log("|---|---:|");
  console.log(`| deliveries to the 2 healthy receivers | ${delivered} of ${2 * EVENTS} |`);
  console.log(`| time until all were delivered | ${seconds.toFixed(1)} s |`);
  console.log(`| deliveries per second (healthy) | ${Math.round(delivered / seconds)} |`);
  console.log(`| events received more than once | ${duplicates.join(" / ")} |`);
  console.log(`| API p50 / p99 before (GET /v1/me) | ${percentile(baseline, 50).toFixed(1)} / ${percentile(baseline, 99).toFixed(1)} ms |`);
  console.log(`| API p50 / p99 during the storm | ${percentile(storm, 50).toFixed(1)} / ${percentile(storm, 99).toFixed(1)} ms (${storm.length} requests) |`);
  console.log(`| server peak RSS | ${peak.toFixed(0)} MiB |`);
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
  for (const r of healthy) r.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

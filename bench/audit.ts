/**
 * What the audit trail costs a read (issue 23 item 4: at most 10 % on GET /v1/meetings/{id}/transcript).
 *
 *   bun bench/audit.ts --base DIR [--duration 10] [--connections 8] [--rounds 3] [--format json]
 *
 * Runs the transcript route of this checkout (every request recorded: one transcript.read entry,
 * batched every 250 ms) and of `--base`, a checkout of the commit before the trail (e.g.
 * `git archive audit-core~1 | tar -x -C /tmp/base` with node_modules linked in), in turn, `--rounds`
 * times, on the same machine in the same minutes: the same meeting (120 segments, inserted with plain
 * SQL that both schemas accept), the same key, request log off on both, the test engines (no model is
 * loaded: the workers sit idle). Reports requests/s, p50 and
 * p99 per run and the median ratio. It then checks that this checkout's trail holds one entry per
 * request wrk completed (the trail was on and kept up). Needs wrk on PATH. Speed is reported, never asserted.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer } from "../test/helpers/spawn-server.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const duration = Number(option("--duration", "10"));
const connections = Number(option("--connections", "8"));
const rounds = Number(option("--rounds", "3"));
const format = option("--format", "json");
const here = join(import.meta.dir, "..");
const base = option("--base", "");
if (!base) throw new Error("--base DIR: a checkout of the commit before the audit trail, to compare with");

interface Started {
  label: string;
  pid: number;
  url: string;
  key: string;
  meetingId: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** A server of `root` on a fresh data dir, with one completed meeting and its transcript. */
async function start(label: string, root: string): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-audit-bench-"));
  const { url, proc, stdout } = await spawnServer({
    command: [process.execPath, "--max-http-header-size=65536", join(root, "src/main.ts"), "serve", "--port", "0", "--data-dir", dataDir, "--rate-limits", "pro=1000000000", "--log-requests=false", "--workers", "1", "--engines", "test/doubles/engines.ts"],
    cwd: root,
  });
  const key = stdout.map((line) => /^\s+(vb_live_\w+)$/.exec(line)?.[1]).find(Boolean)!;
  const db = new Database(join(dataDir, "verbatim.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  const userId = (db.query("SELECT id FROM users LIMIT 1").get() as { id: string }).id;
  const meetingId = crypto.randomUUID();
  const at = 1_800_000_000_000;
  const segments = Array.from({ length: 120 }, (_, i) => ({ start: i * 5, end: i * 5 + 4.5, speaker: `SPEAKER_0${i % 3}`, text: `Segment ${i}: the budget for the second quarter was discussed at some length by everyone present.` }));
  db.query(
    `INSERT INTO meetings (id, user_id, title, title_source, status, created_at, updated_at, recorded_at, transcribe_only, requested_language, language, source, recording_type)
     VALUES (?, ?, 'Bench meeting', 'user', 'completed', ?, ?, ?, 0, 'en', 'en', 'upload', 'meeting')`,
  ).run(meetingId, userId, at, at, at);
  db.query(`INSERT INTO transcripts (meeting_id, language, duration_seconds, model, speakers, segments, speaker_turns, created_at) VALUES (?, 'en', 600, 'm', ?, ?, '[]', ?)`).run(
    meetingId,
    JSON.stringify(["SPEAKER_00", "SPEAKER_01", "SPEAKER_02"]),
    JSON.stringify(segments),
    at,
  );
  db.close();
  const check = await fetch(`${url}/api/v1/meetings/${meetingId}/transcript?format=${format}`, { headers: { Authorization: `Bearer ${key}` } });
  if (check.status !== 200) throw new Error(`${label}: the transcript answered ${check.status}`);
  return {
    label,
    pid: proc.pid,
    url,
    key,
    meetingId,
    dataDir,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** CPU time the server process has used so far (all its threads), in ms: utime + stime of /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * One wrk run: requests completed, requests/s, p50, p99, and the server's CPU time per request (µs),
 * the figure that other load on a shared machine disturbs least (throughput halves when another
 * process takes a core; the CPU a request costs hardly moves).
 */
function load(server: Started): { requests: number; rps: number; p50: string; p99: string; cpuUs: number } {
  const cpuBefore = cpuMs(server.pid);
  const wrk = Bun.spawnSync(["wrk", "-t1", `-c${connections}`, `-d${duration}s`, "--latency", "-H", `Authorization: Bearer ${server.key}`, `${server.url}/api/v1/meetings/${server.meetingId}/transcript?format=${format}`]);
  const text = wrk.stdout.toString();
  if (/Non-2xx|Socket errors/.test(text)) throw new Error(`${server.label}: wrk saw failed requests:\n${text}`);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  return {
    cpuUs: ((cpuMs(server.pid) - cpuBefore) * 1000) / Math.max(1, requests),
    requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0),
    p50: /^\s+50%\s+(\S+)/m.exec(text)?.[1] ?? "?",
    p99: /^\s+99%\s+(\S+)/m.exec(text)?.[1] ?? "?",
  };
}

const audited = await start("with the trail", here);
const before = await start("before the trail", base);
const ratios: number[] = [];
const cpuRatios: number[] = [];
/** Requests to this checkout that wrk completed in the measured runs (the warm-up's come on top). */
let requestsAudited = 0;
try {
  // Warm-up of both, not reported.
  for (const server of [audited, before]) Bun.spawnSync(["wrk", "-t1", `-c${connections}`, "-d2s", "-H", `Authorization: Bearer ${server.key}`, `${server.url}/api/v1/meetings/${server.meetingId}/transcript?format=${format}`]);
  console.log(`GET /api/v1/meetings/{id}/transcript?format=${format}, ${connections} connections, ${duration} s a run\n`);
  console.log("| round | server | requests/s | p50 | p99 | server CPU per request |");
  console.log("|---|---|---|---|---|---|");
  for (let round = 1; round <= rounds; round++) {
    // Each goes first in every other round: on a shared machine the second run of a pair inherits what the first stirred up.
    const first = round % 2 === 1 ? audited : before;
    const one = load(first);
    const two = load(first === audited ? before : audited);
    const [a, b] = first === audited ? [one, two] : [two, one];
    requestsAudited += a.requests;
    ratios.push(a.rps / b.rps);
    cpuRatios.push(a.cpuUs / b.cpuUs);
    console.log(`| ${round} | ${audited.label} | ${a.rps} | ${a.p50} | ${a.p99} | ${a.cpuUs.toFixed(0)} µs |`);
    console.log(`| ${round} | ${before.label} | ${b.rps} | ${b.p50} | ${b.p99} | ${b.cpuUs.toFixed(0)} µs |`);
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  console.log(`\nthroughput with the trail / before it, median of ${rounds} rounds: ${median(ratios).toFixed(3)} (cost ${((1 - median(ratios)) * 100).toFixed(1)} %)`);
  console.log(`server CPU per request with the trail / before it, median of ${rounds} rounds: ${median(cpuRatios).toFixed(3)} (cost ${((median(cpuRatios) - 1) * 100).toFixed(1)} %)`);
} finally {
  await audited.stop();
  await before.stop();
}
// Stopped: the trail's last batch was written on SIGTERM. One entry per request served (warm-up included).
const db = new Database(join(audited.dataDir, "verbatim.db"), { readonly: true });
const entries = (db.query("SELECT count(*) AS n FROM audit_entries WHERE action = 'transcript.read'").get() as { n: number }).n;
db.close();
console.log(`the trail holds ${entries} transcript.read entries (wrk counts only completed requests: at least as many are expected)`);
for (const server of [audited, before]) rmSync(server.dataDir, { recursive: true, force: true });
if (entries < requestsAudited) process.exit(1);

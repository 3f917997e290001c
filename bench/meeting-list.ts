/**
 * GET /api/v1/meetings?limit=100 on an account with 100 meetings, each with a client, two tags, a
 * participant, a job, a transcript and a report: what one list page costs.
 *
 *   bun bench/meeting-list.ts [--duration 5] [--connections 8] [--root DIR]
 *
 * --root runs the server of another checkout (e.g. an older commit in a git worktree), so a change
 * is measured before and after on the same machine in the same hour. Rows are inserted with plain
 * SQL, which every schema version since the meetings tables accepts. Needs wrk on PATH.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer } from "../test/helpers/spawn-server.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const duration = Number(option("--duration", "5"));
const connections = Number(option("--connections", "8"));
const root = option("--root", join(import.meta.dir, ".."));

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-list-bench-"));
const { url, proc, stdout } = await spawnServer({
  command: [process.execPath, "--max-http-header-size=65536", join(root, "src/main.ts"), "serve", "--port", "0", "--data-dir", dataDir, "--rate-limits", "pro=1000000000", "--log-requests=false"],
  cwd: root,
});
const key = stdout.map((line) => /^\s+(vb_live_\w+)$/.exec(line)?.[1]).find(Boolean)!;
try {
  const db = new Database(join(dataDir, "verbatim.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  const userId = (db.query("SELECT id FROM users LIMIT 1").get() as { id: string }).id;
  db.query("INSERT INTO clients (user_id, name, created_at) VALUES (?, 'Acme', 1)").run(userId);
  const clientId = (db.query("SELECT id FROM clients LIMIT 1").get() as { id: number }).id;
  // The report table was called summaries before migration 0006.
  const reportTable = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('reports', 'summaries')").get() as { name: string };
  db.transaction(() => {
    for (let i = 0; i < 100; i++) {
      const id = crypto.randomUUID();
      const at = 1_800_000_000_000 + i;
      db.query(
        `INSERT INTO meetings (id, user_id, title, title_source, status, created_at, updated_at, recorded_at, transcribe_only, requested_language, language, source, recording_type, client_id)
         VALUES (?, ?, ?, 'user', 'completed', ?, ?, ?, 0, 'en', 'en', 'upload', 'meeting', ?)`,
      ).run(id, userId, `Meeting ${i}`, at, at, at, clientId);
      db.query("INSERT INTO meeting_tags (meeting_id, tag) VALUES (?, 'board'), (?, 'q4')").run(id, id);
      db.query("INSERT INTO participants (meeting_id, name, email, speaker_labels) VALUES (?, 'Ana', 'ana@firm.example', '[\"SPEAKER_00\"]')").run(id);
      db.query(
        `INSERT INTO jobs (id, user_id, kind, status, stage, progress, channel, meeting_id, payload, step_attempts, created_at)
         VALUES (?, ?, 'meeting_processing', 'completed', 'done', 1, 'api', ?, '{"transcribeOnly":false}', 0, ?)`,
      ).run(`job_bench${i}`, userId, id, at);
      db.query(`INSERT INTO transcripts (meeting_id, language, duration_seconds, model, speakers, segments, speaker_turns, created_at) VALUES (?, 'en', 60, 'm', '[]', '[]', '[]', ?)`).run(id, at);
      db.query(`INSERT INTO ${reportTable.name} (meeting_id, title, language, markdown, structured, model, created_at, updated_at) VALUES (?, 't', 'en', '# Report', NULL, 'm', ?, ?)`).run(id, at, at);
    }
  })();
  db.close();
  const page = (await (await fetch(`${url}/api/v1/meetings?limit=100`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: unknown[] };
  if (page.data.length !== 100) throw new Error(`expected 100 meetings, got ${page.data.length}`);
  const wrk = Bun.spawnSync(["wrk", `-t1`, `-c${connections}`, `-d${duration}s`, "--latency", "-H", `Authorization: Bearer ${key}`, `${url}/api/v1/meetings?limit=100`]);
  const text = wrk.stdout.toString();
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text)?.[1];
  const p50 = /^\s+50%\s+(\S+)/m.exec(text)?.[1];
  const p99 = /^\s+99%\s+(\S+)/m.exec(text)?.[1];
  console.log(`| ${root === join(import.meta.dir, "..") ? "this checkout" : root} | ${connections} | ${rps} | ${p50} | ${p99} |`);
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The MCP server beside the REST API (issue 24): `tools/call search_meetings` and `get_transcript`
 * against GET /api/v1/meetings?q=… and GET /api/v1/meetings/{id}/transcript, on an account with
 * 1,000 processed meetings (a transcript of 120 segments each, a report, a participant), rows
 * inserted with plain SQL as bench/meeting-list.ts does. Latency p50/p99 of sequential requests
 * (one client, the way an assistant calls tools), after a warm-up.
 *
 *   bun bench/mcp.ts [--requests 300]
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
const requests = Number(option("--requests", "300"));
const MEETINGS = 1000;
const SEGMENTS = 120;
const WORDS = ["budget", "contract", "deadline", "hearing", "invoice", "witness", "merger", "lease", "audit", "claim"];

const root = join(import.meta.dir, "..");
const dataDir = mkdtempSync(join(tmpdir(), "verbatim-mcp-bench-"));
const { url, proc, stdout } = await spawnServer({
  command: [process.execPath, "--max-http-header-size=65536", join(root, "src/main.ts"), "serve", "--port", "0", "--data-dir", dataDir, "--rate-limits", "pro=1000000000", "--log-requests=false"],
  cwd: root,
});
const key = stdout.map((line) => /^\s+(vb_live_\w+)$/.exec(line)?.[1]).find(Boolean)!;
const auth = { Authorization: `Bearer ${key}` };

/** Milliseconds of each of `n` sequential runs of `once`, after 20 unmeasured ones. */
async function measure(once: () => Promise<void>, n: number): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

async function ok(response: Response): Promise<string> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${response.status}: ${text.slice(0, 300)}`);
  return text;
}

let nextId = 1;
/** One tools/call as an MCP client sends it once initialized (stateless: no session to open first). */
async function toolCall(name: string, argumentsOf: Record<string, unknown>): Promise<void> {
  const text = await ok(
    await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: argumentsOf } }),
    }),
  );
  if (text.includes('"isError":true')) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
}

try {
  const db = new Database(join(dataDir, "verbatim.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  const userId = (db.query("SELECT id FROM users LIMIT 1").get() as { id: string }).id;
  const ids: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < MEETINGS; i++) {
      const id = crypto.randomUUID();
      ids.push(id);
      const at = 1_800_000_000_000 + i * 60_000;
      db.query(
        `INSERT INTO meetings (id, user_id, title, title_source, status, created_at, updated_at, recorded_at, transcribe_only, requested_language, language, source, recording_type)
         VALUES (?, ?, ?, 'user', 'completed', ?, ?, ?, 0, 'en', 'en', 'upload', 'meeting')`,
      ).run(id, userId, `Meeting ${i} about the ${WORDS[i % WORDS.length]}`, at, at, at);
      db.query("INSERT INTO participants (meeting_id, name, email, speaker_labels) VALUES (?, 'Ana', 'ana@firm.example', '[\"SPEAKER_00\"]')").run(id);
      const segments = Array.from({ length: SEGMENTS }, (_, s) => ({
        start: s * 10,
        end: s * 10 + 9,
        speaker: s % 2 ? "SPEAKER_01" : "SPEAKER_00",
        text: `Point ${s}: we discussed the ${WORDS[(i + s) % WORDS.length]} and agreed on the next steps before Friday.`,
      }));
      db.query(`INSERT INTO transcripts (meeting_id, language, duration_seconds, model, speakers, segments, speaker_turns, created_at) VALUES (?, 'en', ?, 'm', '["SPEAKER_00","SPEAKER_01"]', ?, '[]', ?)`).run(
        id,
        SEGMENTS * 10,
        JSON.stringify(segments),
        at,
      );
      // The search index the service writes when a transcript is stored (meetings/search-index-store.ts).
      db.query("INSERT INTO meetings_fts (meeting_id, title, report, transcript) VALUES (?, ?, '# Report', ?)").run(id, `Meeting ${i} about the ${WORDS[i % WORDS.length]}`, segments.map((x) => x.text).join(" "));
      db.query(`INSERT INTO reports (meeting_id, title, language, markdown, structured, model, created_at, updated_at) VALUES (?, 't', 'en', '# Report', NULL, 'm', ?, ?)`).run(id, at, at);
    }
  })();
  db.close();
  const meetingId = ids[MEETINGS - 1]!;
  await ok(await fetch(`${url}/api/v1/meetings/${meetingId}/transcript`, { headers: auth }));
  // The search must find a full page, or the figures would measure an empty answer.
  const found = JSON.parse(await ok(await fetch(`${url}/api/v1/meetings?q=budget&limit=20`, { headers: auth }))) as { data: unknown[] };
  if (found.data.length !== 20) throw new Error(`q=budget found ${found.data.length} meetings, expected a page of 20`);

  const rows: [string, { p50: number; p99: number }][] = [];
  rows.push(["REST GET /api/v1/meetings?q=budget&limit=20", await measure(async () => void (await ok(await fetch(`${url}/api/v1/meetings?q=budget&limit=20`, { headers: auth }))), requests)]);
  rows.push(["MCP tools/call search_meetings {q: budget, limit: 20}", await measure(() => toolCall("search_meetings", { q: "budget", limit: 20 }), requests)]);
  rows.push(["REST GET /api/v1/meetings/{id}/transcript (120 segments)", await measure(async () => void (await ok(await fetch(`${url}/api/v1/meetings/${meetingId}/transcript`, { headers: auth }))), requests)]);
  rows.push(["MCP tools/call get_transcript {limit: 200} (120 segments)", await measure(() => toolCall("get_transcript", { meeting_id: meetingId, limit: 200 }), requests)]);
  console.log(`${MEETINGS} meetings, ${requests} sequential requests each`);
  console.log("| call | p50 ms | p99 ms |");
  console.log("|---|---|---|");
  for (const [name, { p50, p99 }] of rows) console.log(`| ${name} | ${p50.toFixed(2)} | ${p99.toFixed(2)} |`);
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}

#!/usr/bin/env bun
/**
 * How far behind the speaker the live transcript runs (issue 25, item 8). Drives a recording
 * draft through the web app's own endpoints as the recorder page does, at real-time pace: every
 * 4 s of a fixture's audio (Opus in WebM, cut in 4-second pieces of one stream, as MediaRecorder
 * makes them) is sent as the part still gathering (PUT /meetings/:id/live/:n) or, once it holds
 * 256 KiB, as a part (PUT /meetings/:id/parts/:n); meanwhile GET /meetings/:id/live is polled
 * every 250 ms. For each 4-second piece: the delay from the moment its audio was sent (the end of
 * what it says) to the moment the live transcription had heard it (`heard_seconds` reached its
 * end). Median and p95 over the pieces, on the engines the server runs: by default the real ones
 * with the CPU stand-in models (models/, ../shared/models/README.md); whisper's text is garbage
 * there, the delay is what it measures.
 *
 *   bun bench/live-transcript.ts [--audio ../shared/fixtures/meeting-en-3spk.wav] [--seconds 60]
 *                                [--bitrate 32k] [--engines test/doubles/engines.ts] [--workers N]
 *
 * Speed is reported, never asserted.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startServer } from "../test/helpers/server.ts";
import { CookieClient } from "../test/helpers/web-client.ts";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] ? argv[at + 1]! : fallback;
};
const AUDIO = option("audio", join(ROOT, "..", "shared", "fixtures", "meeting-en-3spk.wav"));
const SECONDS = Number(option("seconds", "60"));
const BITRATE = option("bitrate", "32k");
const ENGINES = option("engines", "");
const WORKERS = option("workers", "");
const PIECE_SECONDS = 4;
const MIN_PART_BYTES = 256 * 1024;
const PASSWORD = "correct horse battery";

const scratch = mkdtempSync(join(tmpdir(), "verbatim-live-bench-"));
const webmPath = join(scratch, "recording.webm");
const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-stream_loop", "-1", "-i", AUDIO, "-t", String(SECONDS), "-c:a", "libopus", "-b:a", BITRATE, "-f", "webm", "-live", "1", webmPath]);
if (made.exitCode !== 0) throw new Error(made.stderr.toString());
const webm = new Uint8Array(readFileSync(webmPath));
const pieces = Math.ceil(SECONDS / PIECE_SECONDS);
const pieceBytes = Math.ceil(webm.length / pieces);

const server = await startServer({
  args: [
    "--rate-limits", "pro=100000,anonymous=100000",
    ...(ENGINES ? ["--engines", ENGINES] : []),
    ...(WORKERS ? ["--workers", WORKERS] : []),
  ],
  startTimeoutMs: 120_000,
});
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
try {
  // The models load in the worker before its first step: the recording starts once a worker is ready.
  const loading = performance.now();
  while (!server.lines.some((line) => /^worker \d+ ready in/.test(line)) && performance.now() - loading < 600_000) await Bun.sleep(250);
  const made = await server.admin("user", "create", "--email", "bench@firm.example", "--plan", "pro", "--password", PASSWORD);
  if (made.code !== 0) throw new Error(made.stderr);
  const client = new CookieClient(server.url);
  await client.signIn("bench@firm.example", PASSWORD);
  const csrf = await client.csrfToken("/settings");
  const { id } = (await (await client.post("/meetings/drafts", { kind: "recording", title: "Live bench" }, { "x-csrf-token": csrf })).json()) as { id: string };
  const put = async (path: string, bytes: Uint8Array<ArrayBuffer>) => {
    const response = await fetch(`${server.url}${path}`, { method: "PUT", headers: { cookie: client.header(), origin: server.url, "x-csrf-token": csrf }, body: bytes });
    if (response.status !== 204) throw new Error(`PUT ${path}: ${response.status} ${await response.text()}`);
  };

  // When each piece's audio was sent (its end, in seconds of the recording, is (k + 1) * 4).
  const sentAt: number[] = [];
  const heardAt: number[] = [];
  let heard = 0;
  let segments = 0;
  let skipped = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const live = (await (await client.get(`/meetings/${id}/live?after=0`)).json()) as { heard_seconds: number; total: number; skipped_seconds: number };
      const now = performance.now();
      heard = live.heard_seconds;
      segments = live.total;
      skipped = live.skipped_seconds;
      // The last piece may end a little before its nominal end (the recording's length).
      for (let k = 0; k < sentAt.length; k++) if (heardAt[k] === undefined && heard >= Math.min((k + 1) * PIECE_SECONDS, SECONDS) - 0.75) heardAt[k] = now;
      await Bun.sleep(250);
    }
  })();

  const began = performance.now();
  let part = 0;
  let partStart = 0;
  for (let k = 0; k < pieces; k++) {
    // Real-time pace: piece k is whole 4 s after piece k - 1.
    const due = began + (k + 1) * PIECE_SECONDS * 1000;
    await Bun.sleep(Math.max(0, due - performance.now()));
    const end = Math.min(webm.length, (k + 1) * pieceBytes);
    const gathering = webm.slice(partStart, end);
    if (gathering.length >= MIN_PART_BYTES) {
      await put(`/meetings/${id}/parts/${part}`, gathering);
      part++;
      partStart = end;
    } else {
      await put(`/meetings/${id}/live/${part}`, gathering);
    }
    sentAt[k] = performance.now();
  }
  // Waits for the last piece to be heard (at most 3 minutes).
  const deadline = performance.now() + 180_000;
  while (heardAt.filter((t) => t !== undefined).length < pieces && performance.now() < deadline) await Bun.sleep(250);
  polling = false;
  await poll;

  const delays = sentAt.map((sent, k) => (heardAt[k] === undefined ? NaN : (heardAt[k]! - sent) / 1000)).filter((d) => !Number.isNaN(d));
  const neverHeard = pieces - delays.length;
  console.log(`live transcript delay: ${SECONDS} s of ${AUDIO.split("/").pop()} as Opus ${BITRATE} in WebM, ${pieces} pieces of ${PIECE_SECONDS} s at real-time pace`);
  console.log(`engines: ${ENGINES || "real (CPU stand-in models)"}; ${cpus().length} CPU(s): ${cpus()[0]?.model ?? "?"}`);
  console.log(`delay from a piece sent to its audio heard: median ${percentile(delays, 50).toFixed(1)} s, p95 ${percentile(delays, 95).toFixed(1)} s, max ${Math.max(...delays).toFixed(1)} s`);
  console.log(`pieces heard: ${delays.length} of ${pieces}${neverHeard ? ` (${neverHeard} skipped over by a step that fell behind, or not heard in 3 minutes)` : ""}; audio skipped: ${skipped.toFixed(1)} s; heard up to ${heard.toFixed(1)} s; ${segments} provisional segment(s)`);
  console.log(`per piece (s): ${sentAt.map((sent, k) => (heardAt[k] === undefined ? "-" : ((heardAt[k]! - sent) / 1000).toFixed(1))).join(" ")}`);
} finally {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}

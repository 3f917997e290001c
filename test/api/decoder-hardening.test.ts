// The decoder reads only the uploaded file, and only as long a recording as the limit allows
// (issue 8, items 1 and 3): real ffmpeg, a real server, over HTTP. Speech engines are the test
// doubles: what matters here is what ffmpeg is allowed to open and produce.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
// --egress-allow: the playlists also come by audio_url from a loopback file server (a download is not checked at upload).
const ARGS = ["--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=50", "--engines", "test/doubles/engines.ts", "--egress-allow", "127.0.0.1"];
const scratch = mkdtempSync(join(tmpdir(), "verbatim-decoder-"));

let server: TestServer;
let files: ReturnType<typeof Bun.serve>; // serves /<name> = served[name], for audio_url
const served = new Map<string, string>();
let victimKey: string;
let attackerKey: string;

beforeAll(async () => {
  server = await startServer({ args: ARGS, env: { TEST_ENGINE_BEHAVIOR: "" } });
  files = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => new Response(served.get(new URL(request.url).pathname.slice(1)) ?? "", { status: 200 }) });
  victimKey = await createUserWithKey(server, "victim@example.com");
  attackerKey = await createUserWithKey(server, "attacker@example.com");
});
afterAll(async () => {
  files?.stop(true);
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function upload(key: string, body: Blob, fileName: string): Promise<{ id: string; jobId: string }> {
  const form = new FormData();
  form.append("file", body, fileName);
  const response = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  expect(response.status).toBe(202);
  const meeting = (await response.json()) as { id: string; job: { id: string } };
  return { id: meeting.id, jobId: meeting.job.id };
}

async function finished(key: string, jobId: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
    if (["completed", "failed", "canceled"].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

/** The stored recording of a meeting, whatever the server names it (the attacker's guess). */
function storedRecording(meetingId: string): string {
  const dir = join(server.dataDir, "meetings", meetingId);
  const name = readdirSync(dir).find((n) => n !== "audio.wav" && !n.endsWith(".json") && !n.endsWith(".part"));
  expect(name).toBeDefined();
  return join(dir, name!);
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

describe("another account's recording cannot be read through the decoder", () => {
  let victimRecording: string;

  beforeAll(async () => {
    // An mp3, as the example: ffmpeg's HLS demuxer accepts .mp3 segments.
    const mp3 = join(scratch, "board.mp3");
    expect(Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-i", FIXTURE, "-c:a", "libmp3lame", "-q:a", "6", mp3]).exitCode).toBe(0);
    const victim = await upload(victimKey, Bun.file(mp3), "board.mp3");
    expect((await finished(victimKey, victim.jobId)).status).toBe("completed");
    victimRecording = storedRecording(victim.id);
  });

  const attacks: [string, string, (path: string) => string][] = [
    ["an HLS playlist named .mp3", "notes.mp3", (p) => `#EXTM3U\n#EXT-X-TARGETDURATION:60\n#EXTINF:60,\n${p}\n#EXT-X-ENDLIST\n`],
    ["an HLS playlist with a file: URL named .m3u8", "list.m3u8", (p) => `#EXTM3U\n#EXT-X-TARGETDURATION:60\n#EXTINF:60,\nfile://${p}\n#EXT-X-ENDLIST\n`],
    ["an ffconcat list named .wav", "call.wav", (p) => `ffconcat version 1.0\nfile '${p}'\n`],
  ];
  for (const [what, fileName, content] of attacks) {
    test(`${what}: refused at upload (415, not a recording); by audio_url it fails with unsupported_media and yields no transcript`, async () => {
      // Uploaded, its first bytes are no recording's: refused before anything is stored.
      const form = new FormData();
      form.append("file", new Blob([content(victimRecording)]), fileName);
      const refused = await server.api("/api/v1/meetings", { method: "POST", key: attackerKey, body: form });
      expect(refused.status).toBe(415);
      expect(((await refused.json()) as { code: string }).code).toBe("unsupported_media");
      // Downloaded from an audio_url, nothing checks it before the worker: the decoder's allowlists refuse it.
      served.set(fileName, content(victimRecording));
      const created = await server.api("/api/v1/meetings", { method: "POST", key: attackerKey, json: { audio_url: `http://127.0.0.1:${files.port}/${fileName}` } });
      expect(created.status).toBe(202);
      const attack = (await created.json()) as { id: string; job: { id: string } };
      const job = await finished(attackerKey, attack.job.id);
      // Before the allowlists, the playlist decoded the victim's meeting as the attacker's: completed.
      expect(job.status).toBe("failed");
      expect(job.error).toEqual({ code: "unsupported_media", message: "The file is not a recording ffmpeg can decode." });
      expect(JSON.stringify(job)).not.toContain(server.dataDir);
      const transcript = await server.api(`/api/v1/meetings/${attack.id}/transcript`, { key: attackerKey });
      expect(transcript.status).toBe(409);
      // Nothing was decoded for the attacker's meeting.
      expect(readdirSync(join(server.dataDir, "meetings", attack.id))).toEqual(["recording"]);
    });
  }
});

describe("recording length limit", () => {
  test("a 10.5-hour silent FLAC of a few hundred KB fails within seconds and leaves no decoded audio", async () => {
    const flac = join(scratch, "ten-and-a-half-hours.flac");
    const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "37800", "-c:a", "flac", "-frame_size", "16384", flac]);
    expect(made.exitCode).toBe(0);
    const size = statSync(flac).size;
    expect(size).toBeLessThan(5 * 1024 * 1024);

    const before = dirBytes(join(server.dataDir, "meetings"));
    const started = Date.now();
    const meeting = await upload(attackerKey, Bun.file(flac), "long.flac");
    const job = await finished(attackerKey, meeting.jobId);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(job.status).toBe("failed");
    expect(job.error).toEqual({ code: "recording_too_long", message: "The recording is longer than the limit of 10 h." });
    // Only the recording itself was kept: no decoded audio (10.5 h would be 1.2 GB of WAV).
    expect(readdirSync(join(server.dataDir, "meetings", meeting.id))).toEqual(["recording"]);
    expect(dirBytes(join(server.dataDir, "meetings")) - before).toBe(size);
  }, 60_000);
});

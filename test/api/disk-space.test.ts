// The data disk keeps its reserve (issue 8, item 3): new recordings are refused with 507 while
// the disk is below --min-free-disk-percent / --min-free-disk-gb, and a recording is decoded only
// when its decoded audio fits above the reserve. The real free-space check on the real disk is
// what refuses: the tests set the reserve above or just below what this disk has free.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, expectProblem, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const ARGS = ["--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=50", "--engines", "test/doubles/engines.ts"];
const GIB = 1024 ** 3;
const scratch = mkdtempSync(join(tmpdir(), "verbatim-disk-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function uploadForm(recording: Blob, fileName: string): FormData {
  const form = new FormData();
  form.append("file", recording, fileName);
  return form;
}

async function finished(server: TestServer, key: string, jobId: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
    if (["completed", "failed", "canceled"].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}`);
    await Bun.sleep(100);
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe("upload admission below the disk reserve", () => {
  for (const [what, floorArgs] of [
    ["a reserve of 90 % of the disk", ["--min-free-disk-percent", "90"]],
    ["a reserve of a million GiB", ["--min-free-disk-gb", "1000000"]],
  ] as const) {
    test(`with ${what}, uploads and audio_url requests are 507 insufficient_storage and nothing is kept`, async () => {
      const free = statfsSync(tmpdir());
      // The premise: this disk has less free than the reserve asked for.
      expect(free.bavail * free.bsize).toBeLessThan(0.9 * free.blocks * free.bsize);
      const server = await startServer({ args: [...ARGS, ...floorArgs] });
      try {
        const key = await createUserWithKey(server, "owner@example.com");
        const upload = await server.api("/api/v1/meetings", { method: "POST", key, body: uploadForm(Bun.file(FIXTURE), "meeting.wav") });
        const problem = await expectProblem(upload, 507, "insufficient_storage");
        expect(problem.detail).toBe("The server is low on disk space and accepts no new recordings now. Try again later.");
        expect(JSON.stringify(problem)).not.toContain(server.dataDir);
        const byUrl = await server.api("/api/v1/meetings", { method: "POST", key, json: { audio_url: "https://example.com/meeting.mp3" } });
        await expectProblem(byUrl, 507, "insufficient_storage");

        const list = (await (await server.api("/api/v1/meetings", { key })).json()) as any;
        expect(list.data).toEqual([]);
        // The upload was refused before its body was read: nothing reached the disk.
        expect(filesUnder(join(server.dataDir, "tmp"))).toEqual([]);
        expect(filesUnder(join(server.dataDir, "meetings"))).toEqual([]);
        // Reads still work: only new recordings are refused.
        expect((await server.api("/api/v1/me", { key })).status).toBe(200);
      } finally {
        await server.stop();
      }
    }, 30_000);
  }
});

describe("decoding needs room above the reserve", () => {
  test("a 25-hour recording whose audio does not fit fails insufficient_storage before decoding; a short one completes", async () => {
    // 25 h of silence: under 2 MB of FLAC, 2.9 GB of decoded audio.
    const flac = join(scratch, "twenty-five-hours.flac");
    const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "90000", "-c:a", "flac", "-frame_size", "16384", flac]);
    expect(made.exitCode).toBe(0);
    expect(statSync(flac).size).toBeLessThan(2 * 1024 * 1024);
    const decodedBytes = 90_000 * 32_000;

    // A reserve that leaves between 1 and 2 GiB of this disk usable: enough for uploads, not for 2.9 GB of audio.
    const stats = statfsSync(tmpdir());
    const reserveGib = Math.floor((stats.bavail * stats.bsize) / GIB) - 1;
    expect(reserveGib).toBeGreaterThan(0);
    expect(decodedBytes).toBeGreaterThan(2 * GIB);
    const server = await startServer({
      args: [...ARGS, "--max-duration", "100000", "--min-free-disk-percent", "0", "--min-free-disk-gb", String(reserveGib)],
    });
    try {
      const key = await createUserWithKey(server, "owner@example.com");
      const created = await server.api("/api/v1/meetings", { method: "POST", key, body: uploadForm(Bun.file(flac), "long.flac") });
      expect(created.status).toBe(202);
      const meeting = (await created.json()) as any;
      const started = Date.now();
      const job = await finished(server, key, meeting.job.id);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(job.status).toBe("failed");
      expect(job.error).toEqual({
        code: "insufficient_storage",
        message: "The server has not enough free disk space to process the recording now. Try again later.",
      });
      // Refused before decoding: only the recording is in the meeting's folder.
      expect(readdirSync(join(server.dataDir, "meetings", meeting.id))).toEqual(["recording"]);
      // Retried (the space may come back), and the operator's log says why.
      const log = server.lines.join("\n");
      expect(log).toContain(`job ${meeting.job.id} step decode failed (insufficient_storage`);
      expect(log).toMatch(new RegExp(`job ${meeting.job.id} failed: insufficient_storage: .*decoding needs up to ${decodedBytes + 44} bytes`));

      // A 29-second recording fits: the check measures the recording, it does not refuse everything.
      const short = await server.api("/api/v1/meetings", { method: "POST", key, body: uploadForm(Bun.file(FIXTURE), "meeting.wav") });
      expect(short.status).toBe(202);
      expect((await finished(server, key, ((await short.json()) as any).job.id)).status).toBe("completed");
    } finally {
      await server.stop();
    }
  }, 90_000);
});

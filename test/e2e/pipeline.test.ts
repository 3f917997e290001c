// The whole pipeline with the real engines (ffmpeg, whisper.cpp with Silero VAD, sherpa-onnx
// diarization, llama.cpp) on the shared fixtures, over real HTTP, with the models that
// scripts/install-models.ts put in ./models. What is asserted is what these models can honestly
// show (../shared/models/README.md): whisper has random weights, so its text is garbage and never
// checked; the diarization graphs are training-free but separate the fixtures' voices, so speaker
// counts and attribution are held to the figures measured there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseReferenceJson, speakerAttribution, type Turn } from "../../bench/quality/metrics.ts";
import { validateReport } from "../../src/engines/llm/schema.ts";
import { SHIPPED_CATALOGUE } from "../../src/models/catalogue.ts";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const FIXTURES = join(ROOT, "..", "shared", "fixtures");
const EN_WAV = join(FIXTURES, "meeting-en-3spk.wav");
const FR_WAV = join(FIXTURES, "meeting-fr-2spk.wav");
const EN_REF = parseReferenceJson(readFileSync(join(FIXTURES, "meeting-en-3spk.json"), "utf8"));
const FR_REF = parseReferenceJson(readFileSync(join(FIXTURES, "meeting-fr-2spk.json"), "utf8"));
const ARGS = ["--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=50"];
const FINAL = new Set(["completed", "failed", "canceled"]);
const STAGE_ORDER = ["queued", "downloading", "transcribing", "summarizing", "done"];

const scratch = mkdtempSync(join(tmpdir(), "verbatim-e2e-"));
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

async function boot(args: string[] = []): Promise<{ server: TestServer; key: string }> {
  const server = await startServer({ args: [...ARGS, ...args] });
  servers.push(server);
  return { server, key: await createUserWithKey(server, `e2e-${servers.length}@example.com`) };
}

async function ffmpeg(args: string[]): Promise<void> {
  const proc = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", ...args], { stdout: "ignore", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`ffmpeg ${args.join(" ")} failed: ${stderr}`);
}

interface Followed {
  job: any;
  stages: string[];
  progress: number[];
}

/** Polls a job until it ends, keeping the stages and progress it went through. */
async function follow(server: TestServer, key: string, jobId: string, timeoutMs = 240_000): Promise<Followed> {
  const stages: string[] = [];
  const progress: number[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await server.api(`/api/v1/jobs/${jobId}`, { key });
    expect(response.status).toBe(200);
    const job = (await response.json()) as any;
    if (stages.at(-1) !== job.stage) stages.push(job.stage);
    progress.push(job.progress);
    if (FINAL.has(job.status)) return { job, stages, progress };
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}/${job.stage} after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

async function getJson(server: TestServer, key: string, path: string): Promise<any> {
  const response = await server.api(path, { key });
  expect(response.status).toBe(200);
  return response.json();
}

/** Seconds of the union of the turns that `segment` overlaps. */
function overlapWith(turns: readonly Turn[], start: number, end: number): number {
  return turns.reduce((sum, t) => sum + Math.max(0, Math.min(end, t.end) - Math.max(start, t.start)), 0);
}

/** Everything every completed meeting must have: transcript in all formats, speakers, report. */
async function checkCompleted(server: TestServer, key: string, meetingId: string, reference: ReturnType<typeof parseReferenceJson>, durationSeconds: number) {
  const meeting = await getJson(server, key, `/api/v1/meetings/${meetingId}`);
  expect(meeting.status).toBe("completed");
  expect(Math.abs(meeting.duration_seconds - durationSeconds)).toBeLessThanOrEqual(1);

  const transcript = await getJson(server, key, `/api/v1/meetings/${meetingId}/transcript`);
  expect(transcript.object).toBe("transcript");
  expect(transcript.model).toBe("ggml-tiny-random");
  expect(transcript.segments.length).toBeGreaterThan(0);
  const firstSpeech = Math.min(...reference.turns.map((t) => t.start));
  const lastSpeech = Math.max(...reference.turns.map((t) => t.end));
  let previousStart = 0;
  for (const segment of transcript.segments) {
    // Within the recording, ordered, and on speech: the VAD gates whisper, so nothing lies in
    // the silence before the first or after the last word, and every segment touches speech.
    expect(segment.start).toBeGreaterThanOrEqual(previousStart);
    expect(segment.end).toBeGreaterThan(segment.start);
    expect(segment.end).toBeLessThanOrEqual(durationSeconds);
    expect(segment.start).toBeGreaterThanOrEqual(firstSpeech - 0.5);
    expect(segment.end).toBeLessThanOrEqual(lastSpeech + 0.5);
    expect(overlapWith(reference.turns, segment.start, segment.end)).toBeGreaterThan(0);
    expect(segment.text.trim().length).toBeGreaterThan(0);
    expect(transcript.speakers).toContain(segment.speaker);
    previousStart = segment.start;
  }
  // The diarization turns lie on the reference speech too (their speech/silence rule is real).
  const turns = transcript.speaker_turns as Turn[];
  expect(turns.length).toBeGreaterThan(0);
  const turnSeconds = turns.reduce((sum, t) => sum + (t.end - t.start), 0);
  expect(turns.reduce((sum, t) => sum + overlapWith(reference.turns, t.start, t.end), 0) / turnSeconds).toBeGreaterThan(0.9);
  for (const turn of turns) expect(transcript.speakers).toContain(turn.speaker);

  // Every output format.
  for (const [format, type, check] of [
    ["md", "text/markdown", (body: string) => body.startsWith("# ")],
    ["txt", "text/plain", (body: string) => body.includes("SPEAKER_0")],
    ["srt", "application/x-subrip", (body: string) => /^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /.test(body)],
    ["vtt", "text/vtt", (body: string) => body.startsWith("WEBVTT")],
  ] as const) {
    const response = await server.api(`/api/v1/meetings/${meetingId}/transcript?format=${format}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith(type);
    expect(check(await response.text())).toBe(true);
  }

  // The AI report: stored, schema-valid under the grammar's schema, and in Markdown.
  const summary = await getJson(server, key, `/api/v1/meetings/${meetingId}/summary`);
  expect(summary.object).toBe("summary");
  expect(validateReport(summary.structured)).toEqual([]);
  expect(Object.keys(summary.structured).sort()).toEqual(["action_items", "decisions", "key_takeaways", "minutes", "summary", "title"]);
  expect(summary.structured.title.trim().length).toBeGreaterThan(0);
  expect(summary.markdown.trim().length).toBeGreaterThan(0);
  const markdown = await server.api(`/api/v1/meetings/${meetingId}/summary?format=md`, { key });
  expect(markdown.status).toBe(200);
  expect(await markdown.text()).toBe(summary.markdown);
  return { meeting, transcript, summary };
}

function attribution(reference: ReturnType<typeof parseReferenceJson>, transcript: any) {
  return speakerAttribution(reference.turns, transcript.speaker_turns as Turn[]);
}

describe("real engines on the shared fixtures", () => {
  let server: TestServer;
  let key: string;
  const mp3 = join(scratch, "meeting-en-3spk.mp3");
  const mp4 = join(scratch, "meeting-en-3spk.mp4");
  let fileServer: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    const encoders = Bun.spawnSync(["ffmpeg", "-hide_banner", "-encoders"]).stdout.toString();
    const video = /\blibx264\b/.test(encoders) ? "libx264" : "mpeg4";
    await Promise.all([
      ffmpeg(["-i", EN_WAV, "-codec:a", "libmp3lame", "-b:a", "128k", mp3]),
      ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=64x64:r=5:d=66", "-i", EN_WAV, "-shortest", "-c:v", video, "-c:a", "aac", mp4]),
    ]);
    // The French recording comes by audio_url, from a loopback server the egress guard is told to allow.
    // It sends the file in 8 parts 150 ms apart, slowly enough for the downloading stage to be seen.
    const bytes = readFileSync(FR_WAV);
    fileServer = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        const part = Math.ceil(bytes.length / 8);
        const body = new ReadableStream({
          async start(controller) {
            for (let offset = 0; offset < bytes.length; offset += part) {
              controller.enqueue(bytes.subarray(offset, offset + part));
              await Bun.sleep(150);
            }
            controller.close();
          },
        });
        return new Response(body, { headers: { "Content-Type": "audio/wav", "Content-Length": String(bytes.length) } });
      },
    });
    ({ server, key } = await boot(["--egress-allow", "127.0.0.1"]));
  });
  afterAll(() => fileServer?.stop(true));

  async function upload(path: string, name: string, fields: Record<string, string> = {}) {
    const form = new FormData();
    form.append("file", Bun.file(path), name);
    for (const [field, value] of Object.entries(fields)) form.append(field, value);
    const response = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
    expect(response.status).toBe(202);
    return (await response.json()) as any;
  }

  test("en wav, mp3 and mp4, and fr by URL: every stage to completed, speakers and report as the models allow", async () => {
    // en wav: three participants named, an upper bound; en mp3: an exact count; en mp4: no hint.
    const enWav = await upload(EN_WAV, "meeting-en-3spk.wav", { participants: JSON.stringify([{ name: "Anna" }, { name: "Ben" }, { name: "Chloé" }]), language: "en" });
    const enMp3 = await upload(mp3, "meeting-en-3spk.mp3", { min_speakers: "3", max_speakers: "3" });
    const enMp4 = await upload(mp4, "meeting-en-3spk.mp4", { title: "Quarterly budget review" });
    const created = await server.api("/api/v1/meetings", { method: "POST", key, json: { audio_url: `http://127.0.0.1:${fileServer.port}/meeting-fr-2spk.wav`, language: "fr" } });
    expect(created.status).toBe(202);
    const frUrl = (await created.json()) as any;

    const [wavRun, mp3Run, mp4Run, frRun] = (await Promise.all(
      [enWav, enMp3, enMp4, frUrl].map((meeting) => follow(server, key, meeting.job.id)),
    )) as [Followed, Followed, Followed, Followed];
    for (const run of [wavRun, mp3Run, mp4Run, frRun]) {
      expect(run.job).toMatchObject({ status: "completed", stage: "done", progress: 1, error: null });
      // Stages only move forward, progress never goes back.
      const order = run.stages.map((s) => STAGE_ORDER.indexOf(s));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(run.progress).toEqual([...run.progress].sort((a, b) => a - b));
      expect(run.stages).toContain("transcribing");
    }
    expect(frRun.stages).toContain("downloading");

    // en wav: 3 participants bound the count; threshold clustering finds 4, so 3 it is (README: 0.742).
    const wav = await checkCompleted(server, key, enWav.id, EN_REF, 66);
    expect(wav.transcript.speakers).toHaveLength(3);
    expect(attribution(EN_REF, wav.transcript).accuracy).toBeGreaterThanOrEqual(0.7);
    expect(wav.transcript.language).toBe("en");
    // No title given: the AI title replaces the file name.
    expect(wav.meeting.title).toBe(wav.summary.title.trim().slice(0, 300));

    // en mp3, exactly 3: the same figure through a lossy codec.
    const fromMp3 = await checkCompleted(server, key, enMp3.id, EN_REF, 66);
    expect(fromMp3.transcript.speakers).toHaveLength(3);
    expect(attribution(EN_REF, fromMp3.transcript).accuracy).toBeGreaterThanOrEqual(0.7);

    // en mp4, no hint: the count is found by threshold (README: 4 speakers at 0.7-0.8, 0.760).
    const fromMp4 = await checkCompleted(server, key, enMp4.id, EN_REF, 66);
    expect(fromMp4.transcript.speakers.length).toBeGreaterThanOrEqual(3);
    expect(fromMp4.transcript.speakers.length).toBeLessThanOrEqual(4);
    expect(attribution(EN_REF, fromMp4.transcript).accuracy).toBeGreaterThanOrEqual(0.7);
    expect(fromMp4.meeting.title).toBe("Quarterly budget review"); // a given title is kept

    // fr by URL, no hint: two speakers, and every covered second right (README: 0.925).
    const fr = await checkCompleted(server, key, frUrl.id, FR_REF, 29);
    expect(fr.transcript.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    const frScore = attribution(FR_REF, fr.transcript);
    expect(frScore.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(fr.transcript.language).toBe("fr");
    expect(fr.summary.language).toBe("fr");

    // A solo recording gets one speaker, with no diarization at all.
    const solo = await upload(FR_WAV, "dictation.wav", { recording_type: "solo" });
    expect((await follow(server, key, solo.job.id)).job.status).toBe("completed");
    const soloTranscript = await getJson(server, key, `/api/v1/meetings/${solo.id}/transcript`);
    expect(soloTranscript.speakers).toEqual(["SPEAKER_00"]);
    expect(new Set(soloTranscript.segments.map((s: any) => s.speaker))).toEqual(new Set(["SPEAKER_00"]));
  }, 600_000);
});

describe("a malformed model file", () => {
  function modelsWith(broken: string, content: Uint8Array): string {
    const dir = join(scratch, `models-${broken.replace(/\W/g, "-")}`);
    for (const name of SHIPPED_CATALOGUE.filter((entry) => entry.default).map((entry) => entry.path)) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      if (name === broken) writeFileSync(join(dir, name), content);
      else copyFileSync(join(ROOT, "models", name), join(dir, name));
    }
    return dir;
  }

  /** A server whose models directory has `broken` replaced by `content`, and the fr fixture run on it to its end. */
  async function runWithBrokenModel(broken: string, content: Uint8Array) {
    const { server, key } = await boot(["--models-dir", modelsWith(broken, content)]);
    const form = new FormData();
    form.append("file", Bun.file(FR_WAV), "meeting-fr-2spk.wav");
    const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
    const { job, stages } = await follow(server, key, created.job.id, 120_000);
    return { server, key, created, job, stages };
  }

  test("a corrupt whisper model fails transcribing with a clear error, and the API keeps answering", async () => {
    const half = readFileSync(join(ROOT, "models/whisper/ggml-tiny-random.bin")).subarray(0, 1_000_000);
    const { server, key, created, job, stages } = await runWithBrokenModel("whisper/ggml-tiny-random.bin", half);
    expect(job.status).toBe("failed");
    expect(stages.at(-1)).toBe("transcribing");
    expect(job.error.code).toBe("model_invalid");
    expect(job.error.message).toContain("ggml-tiny-random.bin");
    expect(job.error.message).not.toMatch(/(^|[\s'"(=])\//); // named relative to the models dir, never by an absolute path
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
    // Readiness says which model is wrong (to a caller with a credential); the service stays up for everything else.
    const readiness = await server.api("/readyz", { key });
    expect(readiness.status).toBe(200);
    const report = (await readiness.json()) as any;
    expect(report.status).toBe("degraded");
    expect(report.checks.models).toMatchObject({ ready: false });
    expect(report.checks.models.detail).toContain("whisper/ggml-tiny-random.bin");
    const meeting = await getJson(server, key, `/api/v1/meetings/${created.id}`);
    expect(meeting.status).toBe("failed");
  }, 180_000);

  test("a corrupt report model fails summarizing; the transcript made before it stays", async () => {
    const garbage = new TextEncoder().encode("GGUF this is not a model at all ".repeat(1000));
    const { server, key, created, job, stages } = await runWithBrokenModel("llm/stories260K.gguf", garbage);
    expect(job.status).toBe("failed");
    expect(stages.at(-1)).toBe("summarizing");
    expect(job.error.code).toBe("model_invalid");
    expect(job.error.message).toContain("stories260K.gguf");
    expect(job.error.message).not.toMatch(/(^|[\s'"(=])\//); // named relative to the models dir, never by an absolute path
    const transcript = await getJson(server, key, `/api/v1/meetings/${created.id}/transcript`);
    expect(transcript.segments.length).toBeGreaterThan(0);
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
  }, 180_000);
});

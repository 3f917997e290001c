import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engines } from "../engines/types.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { meetingDir } from "../storage/paths.ts";
import type { WorkerConfig } from "./config.ts";
import type { MeetingStepInput } from "./protocol.ts";
import { runStep } from "./steps.ts";

const fixture = join(import.meta.dir, "../../../shared/fixtures/meeting-fr-2spk.wav");
const root = mkdtempSync(join(tmpdir(), "verbatim-steps-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = { ffmpegPath: "ffmpeg", maxDurationSeconds: 36_000, minFreeDisk: { percent: 0, bytes: 0 } } as WorkerConfig;
const context = () => ({ signal: new AbortController().signal, progress() {} });
const input = (runId: string): MeetingStepInput => ({
  kind: "meeting_processing",
  runId,
  step: "decode",
  jobId: "job_1",
  meetingId: "m1",
  storageDir: root,
  audioUrl: null,
  remuxJoinedWebm: false,
  language: null,
  transcribeOnly: false,
  solo: false,
  minSpeakers: null,
  maxSpeakers: null,
  title: null,
  prompt: null,
  participantCount: 0,
  redaction: null,
  participantNames: [],
});

test("two attempts of the same step at once (a lost lease) each write their own files; what is committed is whole, and no temporary file stays", async () => {
  const storage = localDiskStorage(root);
  await storage.put("m1", "recording", await Bun.file(fixture).bytes(), "upload");
  const engines = {} as Engines; // decode uses ffmpeg only
  const [a, b] = await Promise.all([runStep(input("run_a"), engines, config, context()), runStep(input("run_b"), engines, config, context())]);
  expect(a).toEqual(b);
  expect(readdirSync(meetingDir(root, "m1")).sort()).toEqual(["audio.wav", "decode.json", "recording"]);
  const wav = (await storage.open("m1", "audio.wav"))!;
  // 16 kHz mono 16-bit: the header's data size matches the file, so it is one whole decode.
  const header = new DataView(await wav.slice(0, 44).arrayBuffer());
  expect(header.getUint32(40, true) + 44).toBe(wav.size);
  expect(JSON.parse(new TextDecoder().decode((await storage.get("m1", "decode.json"))!))).toEqual({ durationSeconds: (a as { durationSeconds: number }).durationSeconds });
});

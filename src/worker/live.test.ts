import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engines } from "../engines/types.ts";
import { draftPartName, LIVE_TRANSCRIPT, liveTailName, meetingDir } from "../storage/paths.ts";
import type { TimedWord } from "../transcripts/types.ts";
import type { WorkerConfig } from "./config.ts";
import { clampWindow, emptyLiveTranscript, LIVE_WINDOW, mergeWindow, runLiveStep, windowStart } from "./live.ts";
import type { LiveStepInput, LiveTranscriptFile } from "./protocol.ts";

const words = (...list: [number, number, string][]): TimedWord[] => list.map(([start, end, text]) => ({ start, end, text: ` ${text}` }));

describe("the live window", () => {
  test("starts a little before the last word kept, or before the held-back tail after silence", () => {
    expect(windowStart(emptyLiveTranscript())).toBe(0);
    const state = { ...emptyLiveTranscript(), committedEnd: 10, heardUntil: 10.4 };
    expect(windowStart(state)).toBeCloseTo(10 - LIVE_WINDOW.OVERLAP_SECONDS);
    // 20 s heard and nothing kept since 10 s (silence): not heard again.
    expect(windowStart({ ...state, heardUntil: 20 })).toBeCloseTo(20 - LIVE_WINDOW.HOLD_BACK_SECONDS - LIVE_WINDOW.OVERLAP_SECONDS);
  });

  test("a step that fell behind skips to the newest audio", () => {
    expect(clampWindow(5, 12)).toEqual({ start: 5, skipped: 0 });
    expect(clampWindow(5, 40)).toEqual({ start: 40 - LIVE_WINDOW.MAX_WINDOW_SECONDS, skipped: 40 - LIVE_WINDOW.MAX_WINDOW_SECONDS - 5 });
  });

  test("the overlap's words are kept once, by time and by text; the tail waits for the next window", () => {
    const first = mergeWindow(emptyLiveTranscript(), words([0, 1, "good"], [1, 2, "morning"], [2, 3, "every"], [3.6, 3.9, "one"]), { start: 0, end: 4, skipped: 0, heardBytes: 100 });
    // "one" ends inside the last HOLD_BACK_SECONDS of the window: not kept yet.
    expect(first.segments).toEqual([{ start: 0, end: 3, text: "good morning every" }]);
    expect(first.committedEnd).toBe(3);
    expect(first.heardBytes).toBe(100);
    // The next window starts 1.5 s before: "morning every" again (by time), then "every" again with
    // a slightly different time (by text), then the new words.
    const second = mergeWindow(first, words([1.5, 2, "morning"], [2.9, 3.1, "every"], [3.2, 3.9, "one"], [4, 5, "let's"], [5, 6, "start"]), { start: windowStart(first), end: 8, skipped: 0, heardBytes: 200 });
    expect(second.segments.map((s) => s.text)).toEqual(["good morning every", "one let's start"]);
    expect(second.committedEnd).toBe(6);
    expect(second.heardUntil).toBe(8);
    // The input state is not changed.
    expect(first.segments).toHaveLength(1);
  });

  test("a 'word' stretched over seconds to the window's end (whisper's timing, not a cut word) is kept, ended at the edge", () => {
    const next = mergeWindow(emptyLiveTranscript(), words([0.9, 11.99, "Tre"]), { start: 0, end: 12, skipped: 0, heardBytes: 10 });
    expect(next.segments).toEqual([{ start: 0.9, end: 11.4, text: "Tre" }]);
    // A short word cut by the end still waits.
    expect(mergeWindow(emptyLiveTranscript(), words([11.2, 11.99, "cut"]), { start: 0, end: 12, skipped: 0, heardBytes: 10 }).segments).toEqual([]);
  });

  test("a window without speech keeps nothing and moves on", () => {
    const next = mergeWindow(emptyLiveTranscript(), [], { start: 0, end: 8, skipped: 0, heardBytes: 10 });
    expect(next.segments).toEqual([]);
    expect(windowStart(next)).toBeCloseTo(8 - LIVE_WINDOW.HOLD_BACK_SECONDS - LIVE_WINDOW.OVERLAP_SECONDS);
  });
});

describe("the live step on a recording in WebM parts (ffmpeg)", () => {
  const root = mkdtempSync(join(tmpdir(), "verbatim-live-"));
  const fixture = join(import.meta.dir, "../../../shared/fixtures/meeting-en-3spk.wav");
  const config = { ffmpegPath: "ffmpeg" } as WorkerConfig;
  const context = () => ({ signal: new AbortController().signal, progress() {} });
  /** What the stand-in transcriber was given: each window's length, in seconds. */
  const heard: number[] = [];
  // A transcriber that says one word per second of its window, named after its second in the recording.
  let offset = 0;
  const engines = {
    transcriber: {
      async transcribe({ wavPath }: { wavPath: string }) {
        const seconds = (statSync(wavPath).size - 44) / 32_000;
        heard.push(seconds);
        const list: TimedWord[] = [];
        for (let s = 0; s + 1 <= seconds; s++) list.push({ start: s + 0.1, end: s + 0.9, text: ` w${Math.round(offset + s)}` });
        return { language: "en", model: "stand-in", segments: [{ start: 0, end: seconds, text: list.map((w) => w.text).join(""), words: list }] };
      },
    },
  } as unknown as Engines;
  let webm: Uint8Array;
  /** The recording cut into parts of `bytes` as a browser's recorder sends them: pieces of one WebM stream, only the first with a header. */
  const cut = (meetingId: string, bytes: number) => {
    const parts: Uint8Array[] = [];
    for (let at = 0; at < webm.length; at += bytes) parts.push(webm.subarray(at, at + bytes));
    mkdirSync(join(meetingDir(root, meetingId), "parts"), { recursive: true });
    return parts;
  };
  const put = (meetingId: string, name: string, bytes: Uint8Array) => {
    mkdirSync(join(meetingDir(root, meetingId), name, ".."), { recursive: true });
    writeFileSync(join(meetingDir(root, meetingId), name), bytes);
  };
  const input = (meetingId: string, parts: number, runId: string): LiveStepInput => ({ kind: "live_transcription", runId, step: "live", jobId: "job_live", meetingId, storageDir: root, parts, language: null, prompt: null });
  const state = (meetingId: string) => JSON.parse(readFileSync(join(meetingDir(root, meetingId), LIVE_TRANSCRIPT), "utf8")) as LiveTranscriptFile;
  // The transcriber names words by their time in the recording: it is told where the window starts.
  const step = async (meetingId: string, parts: number, runId: string) => {
    let before = emptyLiveTranscript();
    try {
      before = state(meetingId);
    } catch {}
    offset = windowStart(before);
    return runLiveStep(input(meetingId, parts, runId), engines, config, context());
  };

  beforeAll(async () => {
    const out = join(root, "fixture.webm");
    // Opus in WebM without cues, as MediaRecorder writes it (32 kb/s: 4 KB a second).
    const proc = Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", "-i", fixture, "-t", "40", "-c:a", "libopus", "-b:a", "32k", "-f", "webm", "-live", "1", out]);
    expect(await proc.exited).toBe(0);
    webm = new Uint8Array(readFileSync(out));
  }, 60_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("parts heard as they arrive: each window is the new audio with a little overlap, no word twice", async () => {
    const parts = cut("m_live", 16_000); // about 4 s each
    let n = 0;
    for (; n < 2; n++) put("m_live", draftPartName(n), parts[n]!);
    heard.length = 0;
    const first = await step("m_live", 2, "run1");
    expect(first).toMatchObject({ step: "live", skippedSeconds: 0 });
    expect(heard[0]).toBeGreaterThan(6);
    expect(heard[0]).toBeLessThanOrEqual(LIVE_WINDOW.MAX_WINDOW_SECONDS + 0.1);
    for (; n < 5; n++) put("m_live", draftPartName(n), parts[n]!);
    await step("m_live", 3, "run2a");
    await step("m_live", 4, "run2b");
    await step("m_live", 5, "run2");
    // The second window: the new part (~4 s) and the overlap, not the whole recording again.
    expect(heard[3]).toBeLessThan(4 + LIVE_WINDOW.OVERLAP_SECONDS + LIVE_WINDOW.HOLD_BACK_SECONDS + 1.5);
    const text = state("m_live").segments.map((s) => s.text).join(" ").split(" ");
    expect(new Set(text).size).toBe(text.length);
    // Nothing new: nothing heard.
    const again = await step("m_live", 5, "run3");
    expect(heard).toHaveLength(4);
    expect(again).toMatchObject({ heardBytes: state("m_live").heardBytes });
    // The part still gathering (sent for the live transcript alone) is heard after the parts.
    put("m_live", liveTailName(5), parts[5]!.subarray(0, 8000));
    await step("m_live", 5, "run4");
    expect(heard).toHaveLength(5);
    expect(state("m_live").heardBytes).toBe(parts.slice(0, 5).reduce((t, p) => t + p.length, 0) + 8000);
    // No temporary file is left beside the parts.
    expect(readdirSync(meetingDir(root, "m_live")).sort()).toEqual(["live-tail", "live.json", "parts"]);
  }, 60_000);

  test("a step that fell behind skips to the newest audio instead of hearing it all", async () => {
    const parts = cut("m_behind", 16_000);
    put("m_behind", draftPartName(0), parts[0]!);
    heard.length = 0;
    await step("m_behind", 1, "run1");
    for (let n = 1; n < 9; n++) put("m_behind", draftPartName(n), parts[n]!);
    const result = await step("m_behind", 9, "run2");
    expect(heard[1]).toBeCloseTo(LIVE_WINDOW.MAX_WINDOW_SECONDS, 0);
    expect(result.step === "live" && result.skippedSeconds).toBeGreaterThan(10);
    expect(state("m_behind").skippedSeconds).toBeGreaterThan(10);
  }, 60_000);

  test("a draft finished meanwhile (no part given) hears nothing", async () => {
    heard.length = 0;
    const result = await step("m_live", -1, "run9");
    expect(heard).toHaveLength(0);
    expect(result.step).toBe("live");
  });
});

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALLOWED_DEMUXERS } from "../engines/media-containers.ts";
import { looksLikeRecording, MEDIA_HEAD_BYTES, RECORDING_SIGNATURES } from "./media-sniff.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-sniff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("every container the worker may decode has a signature here, but raw AMR (no header: ffmpeg never probes it)", () => {
  const sniffed = new Set(RECORDING_SIGNATURES.map((s) => s.demuxer));
  const headerless = new Set(["amrnb", "amrwb"]);
  expect(ALLOWED_DEMUXERS.filter((name) => !sniffed.has(name) && !headerless.has(name))).toEqual([]);
  expect([...sniffed].filter((name) => !(ALLOWED_DEMUXERS as readonly string[]).includes(name))).toEqual([]);
});

// Real files, made by ffmpeg from a short tone: [file name, ffmpeg output options].
const MADE: [string, string[]][] = [
  ["a.wav", []],
  ["a.w64", []],
  ["a.mp3", ["-c:a", "libmp3lame"]],
  ["a.flac", []],
  ["a.ogg", ["-c:a", "libvorbis"]],
  ["a.opus", ["-c:a", "libopus"]],
  ["a.m4a", ["-c:a", "aac"]],
  ["a.mov", ["-c:a", "aac"]],
  ["a.aac", ["-c:a", "aac", "-f", "adts"]],
  ["a.webm", ["-c:a", "libopus"]],
  ["a.mka", []],
  ["a.aiff", []],
  ["a.au", []],
  ["a.caf", []],
  ["a.ac3", []],
  ["a.wv", []],
  ["a.tta", []],
  ["a.wma", []],
  ["a.avi", []],
  ["a.flv", ["-c:a", "aac"]],
  ["a.ts", ["-c:a", "mp2"]],
  ["a.mpg", ["-c:a", "mp2", "-f", "mpeg"]],
  ["a.mp2", ["-c:a", "mp2"]],
  ["a.amr", ["-ar", "8000", "-c:a", "libopencore_amrnb"]],
];

test("real recordings made by ffmpeg pass, in every container it could write here", () => {
  const made: string[] = [];
  for (const [name, options] of MADE) {
    const path = join(dir, name);
    const result = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5", ...options, path]);
    if (result.exitCode !== 0) continue; // an encoder this ffmpeg lacks
    made.push(name);
    const head = readFileSync(path).subarray(0, MEDIA_HEAD_BYTES);
    expect({ name, recording: looksLikeRecording(head) }).toEqual({ name, recording: true });
  }
  // The common ones are always there.
  expect(made).toEqual(expect.arrayContaining(["a.wav", "a.mp3", "a.flac", "a.m4a", "a.mka", "a.aiff"]));
}, 120_000); // two dozen ffmpeg runs, on a busy machine

test("an MP3 that opens with an ID3 tag passes", () => {
  const id3 = new Uint8Array([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, ...new Uint8Array(16)]);
  expect(looksLikeRecording(id3)).toBe(true);
});

test("what is no recording is refused: PDF, text, zeros, PNG, ZIP (DOCX), HTML, playlists and concat lists, an empty head", () => {
  const text = (value: string) => new TextEncoder().encode(value);
  const refused: [string, Uint8Array][] = [
    ["pdf", text("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")],
    ["text", text("Minutes of the meeting.\nNothing to hear here.\n")],
    ["zeros", new Uint8Array(4096)],
    ["png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
    ["zip", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0])],
    ["html", text("<!doctype html><html><body>hi</body></html>")],
    ["hls", text("#EXTM3U\n#EXT-X-TARGETDURATION:60\n#EXTINF:60,\n/data/meetings/x/recording\n")],
    ["ffconcat", text("ffconcat version 1.0\nfile '/data/meetings/x/recording'\n")],
    ["riff but not wave", text("RIFF\x10\x00\x00\x00WEBPVP8 ")],
    ["empty", new Uint8Array(0)],
  ];
  for (const [name, head] of refused) expect({ name, recording: looksLikeRecording(head) }).toEqual({ name, recording: false });
});

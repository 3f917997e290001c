import { describe, expect, test } from "bun:test";
import { JOB_ERROR_CATALOGUE } from "./job-codes.ts";
import { mentionsServerPath, publicJobMessage } from "./public-message.ts";

describe("mentionsServerPath", () => {
  test("finds absolute paths and file: URLs wherever they stand in a sentence", () => {
    for (const text of [
      "/var/lib/verbatim/meetings/mtg_1/recording: Invalid data found when processing input",
      "whisper.cpp failed to open '/data/meetings/mtg_1/audio.wav'",
      "could not load (/models/llm/x.gguf)",
      "Cannot find module /srv/engines.ts",
      "path=/tmp/upl_1.part",
      "opened file:recording",
      "in ~/verbatim/data",
    ]) {
      expect({ text, found: mentionsServerPath(text, []) }).toEqual({ text, found: true });
    }
  });

  test("finds a server directory given, even inside a word", () => {
    expect(mentionsServerPath("failed in srv-data-7", ["srv-data-7"])).toBe(true);
  });

  test("leaves model names relative to the models dir, sizes and client terms alone", () => {
    for (const text of [
      "The model file whisper/ggml-tiny-random.bin does not match the catalogue (size); reinstall it.",
      "The recording is longer than the limit of 10 h.",
      "Server answered HTTP 404",
      "Body exceeds the limit of 2147483648 bytes",
      "The transcribe step took longer than 3600 s.",
      "The worker process died during the step (exit code 70, signal null).",
    ]) {
      expect({ text, found: mentionsServerPath(text, ["/var/lib/verbatim"]) }).toEqual({ text, found: false });
    }
  });
});

describe("publicJobMessage", () => {
  test("a message naming a server path gives way to its code's catalogue sentence", () => {
    expect(publicJobMessage("transcription_failed", "whisper.cpp failed on /d/meetings/m/audio.wav", [])).toEqual({
      message: JOB_ERROR_CATALOGUE.transcription_failed.message,
      withheld: true,
    });
  });

  test("an unknown code falls back to engine_error's sentence; an empty message to its code's", () => {
    expect(publicJobMessage("brand_new", "/opt/x failed", []).message).toBe(JOB_ERROR_CATALOGUE.engine_error.message);
    expect(publicJobMessage("no_audio", "  ", [])).toEqual({ message: JOB_ERROR_CATALOGUE.no_audio.message, withheld: false });
  });

  test("a safe message is kept as written", () => {
    expect(publicJobMessage("download_http_error", "Server answered HTTP 404", ["/data"])).toEqual({ message: "Server answered HTTP 404", withheld: false });
  });
});

// The transcripts' use cases over the meeting side's loaders (handed in, as service.ts does): the
// files of each format with our own names, a correction answered with the segment as it now reads,
// and the loader's refusals passed through.
import { describe, expect, test } from "bun:test";
import type { Actor } from "../auth/actor.ts";
import { ApiError } from "../errors/api-error.ts";
import { SAMPLE_META, SAMPLE_TRANSCRIPT } from "../../test/fixtures/transcripts/sample.ts";
import { isTranscriptFormat, transcriptsApp } from "./app.ts";

const actor: Actor = { account: { userId: "usr_a", plan: "free" }, channel: "webapp", credential: { type: "web_session", id: "s" } };
const MEETING = SAMPLE_TRANSCRIPT.meeting_id;

function app() {
  let transcript = structuredClone(SAMPLE_TRANSCRIPT);
  const calls: string[] = [];
  const transcripts = transcriptsApp({
    loadOwnedTranscript: async ({ account: { userId } }, meetingId) => {
      calls.push(`load ${userId} ${meetingId}`);
      if (userId !== "usr_a" || meetingId !== MEETING) throw ApiError.notFound(`Meeting ${meetingId}`);
      return { transcript, meta: SAMPLE_META };
    },
    correctSegment: async ({ account: { userId } }, meetingId, index, text) => {
      calls.push(`correct ${userId} ${meetingId} ${index}`);
      transcript = { ...transcript, segments: transcript.segments.map((s, i) => (i === index ? { ...s, text } : s)) };
      return { text, version: 2 };
    },
    undoCorrection: async () => ({ text: "", version: 0 }),
    listCorrections: async ({ account: { userId } }, meetingId) => [{ userId, meetingId }],
  });
  return { transcripts, calls };
}

describe("transcripts app", () => {
  test("file: each format with its media type, named transcript-<meeting id>.<extension>", async () => {
    const { transcripts } = app();
    const srt = await transcripts.file(actor, MEETING, "srt");
    expect(srt.contentType).toBe("application/x-subrip; charset=utf-8");
    expect(srt.fileName).toBe(`transcript-${MEETING}.srt`);
    expect(srt.body).toContain("Bonjour à tous");
    const md = await transcripts.file(actor, MEETING, "md");
    expect(md.body).toContain(SAMPLE_META.title.slice(0, 10));
    expect(isTranscriptFormat("vtt")).toBe(true);
    expect(isTranscriptFormat("pdf")).toBe(false);
  });

  test("correctSegment: the words and version kept, and the segment as it now reads", async () => {
    const { transcripts, calls } = app();
    const saved = await transcripts.correctSegment(actor, MEETING, 1, "Corrected words.");
    expect(saved.text).toBe("Corrected words.");
    expect(saved.version).toBe(2);
    expect(saved.segment).toMatchObject({ start: 4.2, speaker: "SPEAKER_00", text: "Corrected words." });
    expect(calls).toEqual([`correct usr_a ${MEETING} 1`, `load usr_a ${MEETING}`]);
  });

  test("get and corrections act for the actor's account; another meeting is not found", async () => {
    const { transcripts } = app();
    expect((await transcripts.get(actor, MEETING)).meta).toEqual(SAMPLE_META);
    expect(await transcripts.corrections(actor, MEETING)).toEqual([{ userId: "usr_a", meetingId: MEETING }]);
    await expect(transcripts.file(actor, "other", "txt")).rejects.toMatchObject({ code: "not_found" });
  });
});

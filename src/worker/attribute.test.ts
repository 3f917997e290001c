import { describe, expect, test } from "bun:test";
import { attributeSpeakers } from "./attribute.ts";

describe("attributeSpeakers", () => {
  test("each segment takes the speaker who talks most in it; labels follow first appearance", () => {
    const result = attributeSpeakers(
      [
        { start: 0, end: 4, text: " Hello there." },
        { start: 4.5, end: 9, text: " Hi, how are you?" },
      ],
      [
        { start: 0, end: 3.5, speaker: 7 },
        { start: 3.5, end: 5, speaker: 2 },
        { start: 5, end: 9, speaker: 2 },
      ],
      10,
    );
    expect(result.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(result.segments).toEqual([
      { start: 0, end: 4, speaker: "SPEAKER_00", text: "Hello there." },
      { start: 4.5, end: 9, speaker: "SPEAKER_01", text: "Hi, how are you?" },
    ]);
  });

  test("a segment spanning a speaker change is split at the word where it changes", () => {
    const result = attributeSpeakers(
      [
        {
          start: 0,
          end: 4,
          text: " yes indeed. Next point",
          words: [
            { start: 0, end: 0.5, text: " yes" },
            { start: 0.5, end: 1.5, text: " indeed." },
            { start: 2.1, end: 2.8, text: " Next" },
            { start: 2.8, end: 3.9, text: " point" },
          ],
        },
      ],
      [
        { start: 0, end: 2, speaker: 0 },
        { start: 2, end: 4, speaker: 1 },
      ],
      4,
    );
    expect(result.segments).toEqual([
      { start: 0, end: 1.5, speaker: "SPEAKER_00", text: "yes indeed." },
      { start: 2.1, end: 3.9, speaker: "SPEAKER_01", text: "Next point" },
    ]);
  });

  test("times are clamped to the recording, ordered, and empty or inverted segments dropped", () => {
    const result = attributeSpeakers(
      [
        { start: 8, end: 14, text: "late" },
        { start: -1, end: 2, text: "early" },
        { start: 3, end: 3, text: "empty span" },
        { start: 4, end: 5, text: "   " },
        { start: 12, end: 20, text: "past the end" },
      ],
      [{ start: 0, end: 10, speaker: 0 }],
      10,
    );
    expect(result.segments.map((s) => [s.start, s.end, s.text])).toEqual([
      [0, 2, "early"],
      [8, 10, "late"],
    ]);
  });

  test("without diarization turns everything is SPEAKER_00; a segment with no overlap takes the nearest turn", () => {
    expect(attributeSpeakers([{ start: 0, end: 1, text: "solo" }], [], 1).segments[0]!.speaker).toBe("SPEAKER_00");
    const result = attributeSpeakers(
      [{ start: 5, end: 6, text: "in a gap" }],
      [
        { start: 0, end: 2, speaker: 0 },
        { start: 6.5, end: 9, speaker: 1 },
      ],
      10,
    );
    expect(result.segments[0]!.speaker).toBe("SPEAKER_01");
    // SPEAKER_00 spoke (0 to 2 s) though no segment holds their words: they are still a speaker.
    expect(result.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(result.turns).toEqual([
      { start: 0, end: 2, speaker: "SPEAKER_00" },
      { start: 6.5, end: 9, speaker: "SPEAKER_01" },
    ]);
  });

  test("turns are clamped, ordered, and back-to-back turns of one speaker merged", () => {
    const result = attributeSpeakers(
      [],
      [
        { start: 8, end: 12, speaker: 3 },
        { start: -1, end: 2, speaker: 3 },
        { start: 2, end: 4, speaker: 3 },
        { start: 4, end: 6, speaker: 1 },
        { start: 11, end: 11, speaker: 1 },
      ],
      10,
    );
    expect(result.turns).toEqual([
      { start: 0, end: 4, speaker: "SPEAKER_00" },
      { start: 4, end: 6, speaker: "SPEAKER_01" },
      { start: 8, end: 10, speaker: "SPEAKER_00" },
    ]);
    expect(result.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
  });
});

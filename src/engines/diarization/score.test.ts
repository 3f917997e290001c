import { describe, expect, test } from "bun:test";
import { parseRttm, scoreDiarization } from "./score.ts";

const ref = [
  { start: 0, end: 2, speaker: "A" },
  { start: 2, end: 4, speaker: "B" },
  { start: 4, end: 6, speaker: "A" },
];

describe("scoreDiarization", () => {
  test("a perfect hypothesis under other labels scores 1", () => {
    const s = scoreDiarization(ref, [
      { start: 0, end: 2, speaker: 7 },
      { start: 2, end: 4, speaker: 3 },
      { start: 4, end: 6, speaker: 7 },
    ]);
    expect(s).toMatchObject({ coverage: 1, correct: 1, speakersFound: 2 });
    expect(s.referenceSeconds).toBeCloseTo(6, 5);
    expect(s.mapping).toEqual(new Map([["7", "A"], ["3", "B"]]));
  });

  test("one cluster for everyone: full coverage, correct only for the speaker it maps to", () => {
    const s = scoreDiarization(ref, [{ start: 0, end: 6, speaker: 0 }]);
    expect(s.coverage).toBe(1);
    expect(s.correct).toBeCloseTo(4 / 6, 5);
  });

  test("mapping is one-to-one: a split speaker only counts once", () => {
    const s = scoreDiarization(ref, [
      { start: 0, end: 2, speaker: 0 },
      { start: 2, end: 4, speaker: 1 },
      { start: 4, end: 6, speaker: 2 },
    ]);
    expect(s.correct).toBeCloseTo(4 / 6, 5);
    expect(s.speakersFound).toBe(3);
  });

  test("missed speech lowers coverage; hypothesis speech outside the reference is ignored", () => {
    const s = scoreDiarization(ref, [
      { start: 0, end: 1, speaker: 0 },
      { start: 7, end: 9, speaker: 1 },
    ]);
    expect(s.coverage).toBeCloseTo(1 / 6, 5);
    expect(s.correct).toBeCloseTo(1 / 6, 5);
  });
});

test("parseRttm", () => {
  expect(parseRttm("SPEAKER sample 1 6.690 0.430 <NA> <NA> speaker90 <NA> <NA>\n\nnoise\n")).toEqual([
    { start: 6.69, end: 6.69 + 0.43, speaker: "speaker90" },
  ]);
});

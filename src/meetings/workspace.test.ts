import { expect, test } from "bun:test";
import type { TranscriptSegment } from "../transcripts/types.ts";
import { wordsOfLines } from "./workspace.ts";

const line = (start: number, end: number, text: string): TranscriptSegment => ({ start, end, speaker: "SPEAKER_00", speaker_name: null, text });

test("wordsOfLines: each line's words with their offsets in its text; a line whose text is no longer the words' gets none", () => {
  const speech = [
    { start: 0, end: 2, text: " Hello there", words: [{ start: 0, end: 1, text: " Hello" }, { start: 1, end: 2, text: " there" }] },
    { start: 2, end: 4, text: " Bonjour à tous", words: [{ start: 2, end: 2.5, text: " Bonjour" }, { start: 2.5, end: 3, text: " à" }, { start: 3, end: 4, text: " tous" }] },
  ];
  const lines = [line(0, 2, "Hello there"), line(2, 4, "Bonjour à tous"), line(4, 6, "no words here")];
  expect(wordsOfLines(lines, speech)).toEqual([
    [{ offset: 0, start: 0 }, { offset: 6, start: 1 }],
    [{ offset: 0, start: 2 }, { offset: 8, start: 2.5 }, { offset: 10, start: 3 }],
    null,
  ]);
  // Corrected (or changed by the glossary): the words no longer say the line's text.
  expect(wordsOfLines([line(0, 2, "Hello, their")], speech)).toEqual([null]);
  // A line split from a segment at a change of speaker takes only the words in its time.
  expect(wordsOfLines([line(2, 3, "Bonjour à"), line(3, 4, "tous")], speech)).toEqual([[{ offset: 0, start: 2 }, { offset: 8, start: 2.5 }], [{ offset: 0, start: 3 }]]);
  expect(wordsOfLines(lines, [])).toEqual([null, null, null]);
});

import { expect, test } from "bun:test";
import { parseTextTranscript } from "./text-transcript.ts";

test("speakers from 'Name:', times from [hh:mm:ss] or (mm:ss), lines without a name keep the last speaker", () => {
  const parsed = parseTextTranscript(
    "[00:00:05] Alice Martin: Good morning.\r\n(00:12) Bob: Hello, let us start.\nWe have three points.\n\n[00:01:02] Alice Martin: First, the budget.\n  \n",
  );
  expect(parsed.speakers).toEqual([
    { label: "SPEAKER_00", name: "Alice Martin" },
    { label: "SPEAKER_01", name: "Bob" },
  ]);
  expect(parsed.segments).toEqual([
    { start: 5, end: 12, speaker: "SPEAKER_00", text: "Good morning." },
    { start: 12, end: 12, speaker: "SPEAKER_01", text: "Hello, let us start." },
    { start: 12, end: 62, speaker: "SPEAKER_01", text: "We have three points." },
    { start: 62, end: 62, speaker: "SPEAKER_00", text: "First, the budget." },
  ]);
});

test("a text with no names is one unnamed speaker; control characters are dropped", () => {
  const parsed = parseTextTranscript("just words\u0007 here\nand more");
  expect(parsed.speakers).toEqual([]);
  expect(parsed.segments.map((s) => [s.speaker, s.text])).toEqual([
    ["SPEAKER_00", "just words here"],
    ["SPEAKER_00", "and more"],
  ]);
});

test("at most 50 named speakers: later names stay part of the words", () => {
  const text = Array.from({ length: 60 }, (_, i) => `Person ${i}: line ${i}`).join("\n");
  const parsed = parseTextTranscript(text);
  expect(parsed.speakers).toHaveLength(50);
  expect(parsed.segments.at(-1)).toMatchObject({ speaker: "SPEAKER_49", text: "Person 59: line 59" });
});

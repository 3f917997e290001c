import { expect, test } from "bun:test";
import type { StoredTranscript } from "../transcripts/types.ts";
import { withWords } from "../redaction/redact.ts";
import { redactReport, withoutWords } from "./redact.ts";

const stored: StoredTranscript = {
  language: "en",
  model: "m",
  durationSeconds: 10,
  speakers: ["SPEAKER_00", "SPEAKER_01"],
  // One transcribed segment split between two speakers at "mail" (worker/attribute.ts).
  segments: [
    { start: 0, end: 1, speaker: "SPEAKER_00", text: "Please write" },
    { start: 1, end: 2.5, speaker: "SPEAKER_01", text: "to ann@firm.example" },
  ],
  turns: [],
};
const transcribed = [
  {
    start: 0,
    end: 2.5,
    text: " Please write to ann@firm.example",
    words: [
      { start: 0, end: 0.5, text: " Please" },
      { start: 0.5, end: 1, text: " write" },
      { start: 1, end: 1.5, text: " to" },
      { start: 1.5, end: 2.5, text: " ann@firm.example" },
    ],
  },
];

test("withoutWords takes off the words that withWords put back on the diarized segments", () => {
  const joined = withWords(stored, transcribed);
  expect(joined.segments.map((s) => s.words?.map((w) => w.text.trim()))).toEqual([["Please", "write"], ["to", "ann@firm.example"]]);
  expect(withoutWords(joined)).toEqual(stored);
});

test("redactReport passes every string of the report (title, Markdown, structured) through the recognisers and the participants' names", async () => {
  const report = {
    title: "Call with Orla Quenby",
    markdown: "Write to ann@firm.example.",
    structured: { minutes: ["Orla Quenby: call +33 6 12 34 56 78"], count: 2, nested: { note: "ann@firm.example" } },
    model: "x",
  };
  const request = { entities: ["person" as const, "email" as const, "phone" as const], audio: false, caseNumberPattern: null };
  const redacted = await redactReport(report, stored, request, ["Orla Quenby"], new AbortController().signal);
  const text = JSON.stringify(redacted);
  for (const raw of ["ann@firm.example", "Orla", "Quenby", "12 34 56 78"]) expect(text).not.toContain(raw);
  expect(redacted.markdown).toBe("Write to [EMAIL_1].");
  expect(redacted.structured.count).toBe(2);
  expect(redacted.model).toBe("x");
});

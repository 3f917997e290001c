/** Applying redaction to a transcript and to other texts: placeholders, words, time spans, the finder's answers, speed. */
import { describe, expect, test } from "bun:test";
import { LONG_MEETING_PARTICIPANTS, longMeeting } from "../../test/fixtures/redaction/corpus.ts";
import type { TimedWord } from "../transcripts/types.ts";
import { acceptFound, chunkTexts, participantLiterals } from "./names.ts";
import { emptyPlaceholders, redactText, redactTranscript, withWords } from "./redact.ts";
import { ENTITY_KINDS, type EntityFinder, type RedactableSegment, type RedactableTranscript, type RedactionRequest } from "./types.ts";

const ALL: RedactionRequest = { entities: [...ENTITY_KINDS], audio: true, caseNumberPattern: null };
const none = { participantNames: [], finder: null };

/** A segment whose words are its text's words, evenly timed: " word" pieces as whisper writes them. */
function spoken(start: number, text: string, speaker = "SPEAKER_00", secondsPerWord = 0.5): RedactableSegment {
  const words: TimedWord[] = text.split(" ").map((word, i) => ({ start: start + i * secondsPerWord, end: start + (i + 1) * secondsPerWord, text: ` ${word}` }));
  return { start, end: words.at(-1)!.end, speaker, text, words };
}

function transcript(segments: RedactableSegment[], language = "en"): RedactableTranscript {
  return { language, model: "test", durationSeconds: segments.at(-1)?.end ?? 0, speakers: [...new Set(segments.map((s) => s.speaker))], segments, turns: [] };
}

describe("redactTranscript", () => {
  test("one placeholder per value in order of first appearance, however the value is written", async () => {
    const { transcript: out, summary } = await redactTranscript(
      transcript([
        spoken(0, "Call 06 12 34 56 78 or write to anne@example.fr please."),
        spoken(10, "Sorry, +33 6 12 34 56 78 is my old number, the new one is 07 81 23 45 67."),
        spoken(30, "And ANNE@EXAMPLE.FR still works."),
      ], "fr"),
      ALL,
      none,
    );
    expect(out.segments.map((s) => s.text)).toEqual([
      "Call [PHONE_1] or write to [EMAIL_1] please.",
      "Sorry, [PHONE_1] is my old number, the new one is [PHONE_2].",
      "And [EMAIL_1] still works.",
    ]);
    expect(summary).toEqual({ entities: { phone: 2, email: 1 }, audio: true });
  });

  test("the words become the placeholder's pieces, and their time spans are what to silence", async () => {
    const { transcript: out, spans } = await redactTranscript(transcript([spoken(0, "my card is 4111 1111 1111 1111 thanks")]), ALL, none);
    const segment = out.segments[0]!;
    expect(segment.text).toBe("my card is [CARD_1] thanks");
    // The four words of the number: one word carrying the placeholder over their whole time.
    expect(segment.words).toEqual([
      { start: 0, end: 0.5, text: " my" },
      { start: 0.5, end: 1, text: " card" },
      { start: 1, end: 1.5, text: " is" },
      { start: 1.5, end: 3.5, text: " [CARD_1]" },
      { start: 3.5, end: 4, text: " thanks" },
    ]);
    expect(spans).toEqual([{ start: 1.5, end: 3.5 }]);
  });

  test("an entity cut across two segments: the placeholder in the first, the rest gone from the second, both spans", async () => {
    const { transcript: out, spans } = await redactTranscript(
      transcript([spoken(0, "my IBAN is FR76 3000 6000"), spoken(5, "0112 3456 7890 189 okay", "SPEAKER_01")]),
      ALL,
      none,
    );
    expect(out.segments.map((s) => [s.speaker, s.text])).toEqual([
      ["SPEAKER_00", "my IBAN is [IBAN_1]"],
      ["SPEAKER_01", "okay"],
    ]);
    expect(out.segments[1]!.words).toEqual([{ start: 7, end: 7.5, text: " okay" }]);
    expect(spans).toEqual([{ start: 1.5, end: 3 }, { start: 5, end: 7 }]);
  });

  test("without word timings the span is estimated from the characters, and words that do not spell the text are dropped", async () => {
    const plain = { start: 10, end: 20, speaker: "SPEAKER_00", text: "mail: bob@example.com" };
    const mismatched = { ...plain, start: 20, end: 30, words: [{ start: 20, end: 30, text: " something else" }] };
    const { transcript: out, spans } = await redactTranscript(transcript([plain, mismatched]), ALL, none);
    expect(out.segments.map((s) => s.text)).toEqual(["mail: [EMAIL_1]", "mail: [EMAIL_1]"]);
    expect(out.segments[1]!.words).toBeUndefined();
    const [first, second] = spans;
    expect(first!.start).toBeCloseTo(10 + (10 * 6) / 21, 3);
    expect(first!.end).toBe(20);
    expect(second!.end).toBe(30);
  });

  test("the participants' names always, alone too when capitalized; speaker labels untouched", async () => {
    const { transcript: out, summary } = await redactTranscript(
      transcript([spoken(0, "Thanks Jean-Luc Bernard, and Bernard will send it."), spoken(5, "Claire, will you sign? The will is ready.", "SPEAKER_01")]),
      { ...ALL, entities: ["person"] },
      { participantNames: ["Jean-Luc Bernard", "Claire Will", "Claire Moreau"], finder: null },
    );
    expect(out.segments.map((s) => s.text)).toEqual(["Thanks [PERSON_1], and [PERSON_1] will send it.", "[PERSON_2], will you sign? The will is ready."]);
    expect(out.segments[1]!.speaker).toBe("SPEAKER_01");
    // "Claire" belongs to two participants: it is a person of its own, not one of them.
    expect(summary.entities).toEqual({ person: 2 });
  });

  test("only the kinds asked for", async () => {
    const { transcript: out, summary } = await redactTranscript(
      transcript([spoken(0, "mail bob@example.com phone +44 20 7946 0958")]),
      { entities: ["phone"], audio: false, caseNumberPattern: null },
      none,
    );
    expect(out.segments[0]!.text).toBe("mail bob@example.com phone [PHONE_1]");
    expect(summary).toEqual({ entities: { phone: 1 }, audio: false });
  });

  test("the finder's names are kept only when they really occur in the text as names; garbage changes nothing", async () => {
    const asked: string[] = [];
    const finder: EntityFinder = {
      async find(text, kinds) {
        asked.push(text);
        expect(kinds).toEqual(["person", "address"]);
        return [
          { kind: "person", text: "Harold Finch" },
          { kind: "address", text: "221B Baker Street, London" },
          { kind: "person", text: "the" },
          { kind: "person", text: "Nobody Here" },
          { kind: "person", text: "xq zzv" },
          { kind: "address", text: "" },
          { kind: "email" as "person", text: "Finch" },
        ];
      },
    };
    const { transcript: out, summary } = await redactTranscript(
      transcript([spoken(0, "Harold Finch lives at 221B Baker Street, London and the rest is the same."), spoken(9, "Ask Harold Finch.")]),
      ALL,
      { participantNames: [], finder },
    );
    expect(asked).toEqual(["Harold Finch lives at 221B Baker Street, London and the rest is the same.\nAsk Harold Finch."]);
    expect(out.segments.map((s) => s.text)).toEqual(["[PERSON_1] lives at [ADDRESS_1] and the rest is the same.", "Ask [PERSON_1]."]);
    expect(summary.entities).toEqual({ person: 1, address: 1 });
  });

  test("an aborted signal stops before the finder is asked", async () => {
    const controller = new AbortController();
    controller.abort();
    let asked = false;
    const finder: EntityFinder = { find: async () => ((asked = true), []) };
    await expect(redactTranscript(transcript([spoken(0, "hello there")]), ALL, { participantNames: [], finder, signal: controller.signal })).rejects.toThrow();
    expect(asked).toBe(false);
  });

  test("a 30-minute transcript with entities everywhere is redacted in seconds, not minutes (no quadratic scan)", async () => {
    const started = performance.now();
    const { transcript: out, summary, spans } = await redactTranscript(longMeeting(), ALL, { participantNames: LONG_MEETING_PARTICIPANTS, finder: null });
    const elapsed = performance.now() - started;
    expect(summary.entities).toEqual({ phone: 1, payment_card: 1, email: 1, person: 1, iban: 1 });
    expect(out.segments.filter((s) => s.text.includes("[IBAN_1]")).length).toBe(90);
    // A span per entity (the email and the name of the third line are two words apart): 5 per 5 segments.
    expect(spans.length).toBe(450);
    expect(elapsed).toBeLessThan(5000);
  });
});

describe("withWords", () => {
  test("puts the transcription's words back on the stored segments by time, so the spans are the words'", async () => {
    const speech = [
      {
        start: 0,
        end: 4,
        text: " call 020 7946 0958 now. Yes",
        words: [
          { start: 0, end: 0.5, text: " call" },
          { start: 0.5, end: 1.0004, text: " 020" },
          { start: 1.0004, end: 1.5, text: " 7946" },
          { start: 1.5, end: 2, text: " 0958" },
          { start: 2, end: 2.5, text: " now." },
          { start: 3, end: 4, text: " Yes" },
        ],
      },
    ];
    // As attributeSpeakers stores it: split at the speaker change, times rounded to the millisecond.
    const stored = transcript([
      { start: 0, end: 2.5, speaker: "SPEAKER_00", text: "call 020 7946 0958 now." },
      { start: 3, end: 4, speaker: "SPEAKER_01", text: "Yes" },
    ]);
    const joined = withWords(stored, speech);
    expect(joined.segments.map((s) => s.words?.map((w) => w.text).join(""))).toEqual([" call 020 7946 0958 now.", " Yes"]);
    const { spans } = await redactTranscript(joined, ALL, none);
    expect(spans).toEqual([{ start: 0.5, end: 2 }]);
  });
});

describe("redactText", () => {
  test("the report gets the transcript's placeholders, structured kinds found afresh, new values numbered on", async () => {
    const { placeholders } = await redactTranscript(
      transcript([spoken(0, "Harold Finch gave 06 12 34 56 78 and Jean Dupont")], "fr"),
      ALL,
      { participantNames: ["Jean Dupont"], finder: { find: async () => [{ kind: "person", text: "Harold Finch" }] } },
    );
    const report = redactText("## Actions\n- Dupont calls Harold Finch on +33 6 12 34 56 78 or 07 81 23 45 67.", ALL, placeholders);
    expect(report.text).toBe("## Actions\n- [PERSON_2] calls [PERSON_1] on [PHONE_1] or [PHONE_2].");
  });

  test("an empty map redacts the structured kinds of a text on its own", () => {
    expect(redactText("IBAN GB82 WEST 1234 5698 7654 32.", ALL, emptyPlaceholders("en")).text).toBe("IBAN [IBAN_1].");
  });

  test("the map is plain JSON", async () => {
    const { placeholders } = await redactTranscript(transcript([spoken(0, "bob@example.com")]), ALL, none);
    expect(JSON.parse(JSON.stringify(placeholders))).toEqual(placeholders);
  });
});

describe("names and chunks", () => {
  test("participants: full names and each part, particles and initials left out", () => {
    expect(participantLiterals(["Jean de la Fontaine", "  Ana   Li ", "X"])).toEqual([
      { kind: "person", text: "Jean de la Fontaine" },
      { kind: "person", text: "Ana Li" },
      { kind: "person", text: "Jean", key: "jean de la fontaine", capitalOnly: true },
      { kind: "person", text: "Fontaine", key: "jean de la fontaine", capitalOnly: true },
      { kind: "person", text: "Ana", key: "ana li", capitalOnly: true },
      { kind: "person", text: "Li", key: "ana li", capitalOnly: true },
    ]);
  });

  test("chunks hold whole segments up to the budget, a longer segment cut at spaces", () => {
    expect(chunkTexts(["aaa bbb", "ccc", "ddd eee fff ggg"], 8)).toEqual(["aaa bbb", "ccc", "ddd eee", "fff ggg"]);
    expect(chunkTexts(["a", "b", "c"], 8)).toEqual(["a\nb\nc"]);
  });

  test("acceptFound reads any value defensively", () => {
    expect(acceptFound(null, "x", ["person"])).toEqual([]);
    expect(acceptFound([null, 3, { kind: "person", text: 7 }, { kind: "person", text: "Ann Lee" }], "met Ann Lee", ["person"])).toEqual([{ kind: "person", text: "Ann Lee" }]);
    expect(acceptFound([{ kind: "person", text: "Ann Lee" }], "met Ann Leeson", ["person"])).toEqual([]);
  });
});

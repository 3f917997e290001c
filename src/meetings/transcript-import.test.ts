import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../errors/api-error.ts";
import { MAX_TRANSCRIPT_LINES, MAX_TRANSCRIPT_SPEAKERS } from "./text-transcript.ts";
import { MAX_CUE_CHARS, parseTranscriptFile } from "./transcript-import.ts";

const DIR = join(import.meta.dir, "..", "..", "test", "fixtures", "transcripts", "import");
const fixture = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));
const parse = (name: string) => parseTranscriptFile(fixture(name), name, "transcript");

/** The 400 problem a refused transcript throws: its detail (what the client reads). */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("validation_error");
    expect((error as ApiError).errors).toEqual([{ field: "transcript", code: expect.any(String), message: (error as ApiError).message }]);
    return (error as ApiError).message;
  }
  throw new Error("the transcript was accepted");
}

describe("formats as Teams, Zoom, Meet and subtitle tools write them", () => {
  test("Teams WebVTT: <v Name> voice tags, GUID cue ids, a BOM and escapes", () => {
    const parsed = parse("teams.vtt");
    expect(parsed.format).toBe("vtt");
    expect(parsed.speakers).toEqual([
      { label: "SPEAKER_00", name: "Alice Martin" },
      { label: "SPEAKER_01", name: "Bob Dupont" },
      { label: "SPEAKER_02", name: "Chloé Nguyen" },
    ]);
    expect(parsed.segments).toHaveLength(5);
    expect(parsed.segments[0]).toEqual({ start: 1.52, end: 6.18, speaker: "SPEAKER_00", text: "Good morning everyone, thanks for joining the quarterly review." });
    expect(parsed.segments[1]!.text).toBe("Morning. Shall we start with the Halvorsen & Lund account?");
    expect(parsed.segments.at(-1)).toMatchObject({ start: 23, end: 62.75, speaker: "SPEAKER_01" });
  });

  test("Zoom WebVTT: numbered cues with 'Name:' prefixes, a cue over two lines", () => {
    const parsed = parse("zoom.vtt");
    expect(parsed.format).toBe("vtt");
    expect(parsed.speakers.map((s) => s.name)).toEqual(["Priya Raman", "Tom O'Brien"]);
    expect(parsed.segments[2]).toEqual({
      start: 9.42,
      end: 15.02,
      speaker: "SPEAKER_00",
      text: "The outage on the billing cluster lasted forty minutes and affected the invoice export.",
    });
    expect(parsed.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_00", "SPEAKER_01", "SPEAKER_00"]);
  });

  test("<v Name>words</v> and words with no closing tag, several voices in one cue, other tags only wrap words", () => {
    const parsed = parseTranscriptFile(
      "WEBVTT\nKind: captions\nLanguage: en\n\n00:01.000 --> 00:03.000\n<v Ann>Hello <b>there</b>\n\n00:00:03.000 --> 00:00:05.000\n<v.loud Ben>Hi</v> <v Ann>again</v>\n",
      null,
      "transcript",
    );
    expect(parsed.segments).toEqual([
      { start: 1, end: 3, speaker: "SPEAKER_00", text: "Hello there" },
      { start: 3, end: 5, speaker: "SPEAKER_01", text: "Hi" },
      { start: 3, end: 5, speaker: "SPEAKER_00", text: "again" },
    ]);
  });

  test("SubRip with 'Name:' prefixes and CRLF line ends", () => {
    const parsed = parse("named.srt");
    expect(parsed.format).toBe("srt");
    expect(parsed.speakers.map((s) => s.name)).toEqual(["Marta Kowalska", "James Okafor"]);
    expect(parsed.segments.map((s) => [s.start, s.end, s.speaker])).toEqual([
      [2, 5.5, "SPEAKER_00"],
      [6, 10.25, "SPEAKER_01"],
      [10.8, 14, "SPEAKER_00"],
    ]);
  });

  test("SubRip without names: one unnamed speaker, formatting tags kept as the file has them", () => {
    const parsed = parse("plain.srt");
    expect(parsed.speakers).toEqual([]);
    expect(parsed.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_00", "SPEAKER_00"]);
    expect(parsed.segments[1]).toEqual({ start: 4.5, end: 9, speaker: "SPEAKER_00", text: "<i>Today</i> we cover salvage rights and the duties of the master." });
  });

  test("Meet's caption file (.sbv)", () => {
    const parsed = parse("meet.sbv");
    expect(parsed.format).toBe("sbv");
    expect(parsed.speakers.map((s) => s.name)).toEqual(["Hannah Schmidt", "Lucas Moreau", "Sofia Rossi"]);
    expect(parsed.segments[1]).toEqual({ start: 4.2, end: 9.75, speaker: "SPEAKER_01", text: "I shared the mockups yesterday; the new flow has three steps instead of seven." });
  });

  test("Meet's transcript document as text: its heading skipped, its time lines start the turns after them", () => {
    const parsed = parse("meet.txt");
    expect(parsed.format).toBe("text");
    expect(parsed.speakers.map((s) => s.name)).toEqual(["Hannah Schmidt", "Lucas Moreau", "Sofia Rossi"]);
    expect(parsed.segments.map((s) => s.text)).not.toContain("Attendees");
    expect(parsed.segments[0]).toMatchObject({ start: 0, speaker: "SPEAKER_00", text: "Welcome back. Today we decide on the onboarding redesign." });
    expect(parsed.segments.at(-1)).toMatchObject({ start: 300, speaker: "SPEAKER_01", text: "Agreed. I will write the migration notes." });
  });

  test("the content decides over the extension; text is the web app's format", () => {
    expect(parseTranscriptFile(fixture("named.srt"), "minutes.txt", "transcript").format).toBe("srt");
    expect(parseTranscriptFile(fixture("zoom.vtt"), null, "transcript").format).toBe("vtt");
    expect(parseTranscriptFile("[00:00:05] Alice: Hi.\nBob: Hello.", "notes.txt", "transcript")).toEqual({
      format: "text",
      speakers: [
        { label: "SPEAKER_00", name: "Alice" },
        { label: "SPEAKER_01", name: "Bob" },
      ],
      segments: [
        { start: 5, end: 5, speaker: "SPEAKER_00", text: "Hi." },
        { start: 5, end: 5, speaker: "SPEAKER_01", text: "Hello." },
      ],
    });
  });
});

describe("refused, with the line that failed and what was expected", () => {
  test("SubRip: a timing line with a wrong arrow", () => {
    expect(refusal(() => parse("bad-timing.srt"))).toBe(
      'The transcript could not be read: line 6: SubRip: expected a cue timing such as 00:00:01,000 --> 00:00:04,000, found "00:00:05,000 -> 00:00:08,000".',
    );
  });

  test("SubRip: a cue without its number", () => {
    expect(refusal(() => parse("bad-number.srt"))).toBe('The transcript could not be read: line 5: SubRip: expected a cue number, found "Second cue has no number".');
  });

  test("SubRip: a number with no timing at the end of the file", () => {
    expect(refusal(() => parseTranscriptFile("1\n00:00:01,000 --> 00:00:02,000\nHi\n\n2\n", "a.srt", "transcript"))).toContain("line 6: SubRip: expected a cue timing");
  });

  test("WebVTT: the validator's complaint and its line", () => {
    expect(refusal(() => parse("bad-cue.vtt"))).toMatch(/^The transcript could not be read: line 7: WebVTT: cue identifier needs to be followed by timestamp \(expected a cue: .*00:00:01\.000 --> 00:00:04\.000/);
  });

  test("a .vtt without its WEBVTT signature", () => {
    expect(refusal(() => parseTranscriptFile("00:00:01.000 --> 00:00:02.000\nHi\n", "call.vtt", "transcript"))).toContain('line 1: WebVTT: no valid signature. (File needs to start with "WEBVTT".)');
  });

  test("SubViewer: a timing line without its comma", () => {
    expect(refusal(() => parse("bad.sbv"))).toBe('The transcript could not be read: line 4: SubViewer: expected a cue timing such as 0:00:01.000,0:00:04.000, found "0:00:04.200 0:00:09.750".');
  });

  test("a cue that ends before it starts (one that ends where it starts is kept)", () => {
    expect(refusal(() => parseTranscriptFile("1\n00:00:05,000 --> 00:00:04,000\nBackwards\n", "a.srt", "transcript"))).toContain("line 2: SubRip: expected a cue that ends at or after its start");
    expect(refusal(() => parseTranscriptFile("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nfine\n\n00:00:05.000 --> 00:00:04.000\nBackwards\n", "a.vtt", "transcript"))).toContain(
      "line 6: expected a cue that ends at or after its start",
    );
    expect(parseTranscriptFile("WEBVTT\n\n00:00:03.000 --> 00:00:03.000\nInstant\n", "a.vtt", "transcript").segments).toEqual([{ start: 3, end: 3, speaker: "SPEAKER_00", text: "Instant" }]);
  });

  test("a line of digits then a timing line inside a cue's words", () => {
    expect(refusal(() => parseTranscriptFile("1\n00:00:01,000 --> 00:00:02,000\nwords\n7\n00:00:03,000 --> 00:00:04,000\nmore\n", "a.srt", "transcript"))).toContain(
      "line 2: SubRip: expected a cue's words, found a cue number and timing inside them",
    );
  });

  test("lines counted in a file of CR line ends", () => {
    expect(refusal(() => parseTranscriptFile("Alice: one\rBob: two\r\0", "x.txt", "transcript"))).toContain("line 3: expected text, found a NUL byte");
  });

  test("bytes that are not UTF-8, and NUL bytes, name their line", () => {
    const bytes = new Uint8Array([...new TextEncoder().encode("Alice: fine\nBob: fine too\nCarol: "), 0xff, 0xfe, 0x0a]);
    expect(refusal(() => parseTranscriptFile(bytes, "x.txt", "transcript"))).toContain("line 3: expected text in UTF-8");
    expect(refusal(() => parseTranscriptFile("Alice: one\n\0\0", "x.txt", "transcript"))).toContain("line 2: expected text, found a NUL byte");
  });

  test("no words at all", () => {
    expect(refusal(() => parseTranscriptFile("WEBVTT\n\n00:01.000 --> 00:02.000\n\n", "x.vtt", "transcript"))).toContain("no words");
  });
});

describe("bounds, as the text source's", () => {
  test("at most 20,000 cues: the first cue over names its line", () => {
    const cue = (i: number) => `${i + 1}\n00:00:01,000 --> 00:00:02,000\nword ${i}\n`;
    const srt = Array.from({ length: MAX_TRANSCRIPT_LINES + 1 }, (_, i) => cue(i)).join("\n");
    expect(refusal(() => parseTranscriptFile(srt, "big.srt", "transcript"))).toBe(
      `The transcript could not be read: line ${MAX_TRANSCRIPT_LINES * 4 + 1}: expected at most 20,000 cues.`,
    );
    expect(parseTranscriptFile(Array.from({ length: MAX_TRANSCRIPT_LINES }, (_, i) => cue(i)).join("\n"), "ok.srt", "transcript").segments).toHaveLength(MAX_TRANSCRIPT_LINES);
  });

  test("a cue's words at most 5,000 characters", () => {
    const long = "x".repeat(MAX_CUE_CHARS + 1);
    expect(refusal(() => parseTranscriptFile(`1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:03,000 --> 00:00:04,000\n${long}\n`, "a.srt", "transcript"))).toContain(
      "line 6: expected a cue of at most 5,000 characters",
    );
    expect(refusal(() => parseTranscriptFile(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nfine\n\n01:00:03.000 --> 01:00:04.000\n<v A>${long}\n`, "a.vtt", "transcript"))).toContain(
      "line 6: expected a cue of at most 5,000 characters",
    );
  });

  test("at most 50 named speakers in a cue format too: later names stay part of the words", () => {
    const vtt = `WEBVTT\n\n${Array.from({ length: 60 }, (_, i) => `00:00:${String(i).padStart(2, "0")}.000 --> 00:00:${String(i).padStart(2, "0")}.500\n<v Person ${i}>line ${i}`).join("\n\n")}\n`;
    const parsed = parseTranscriptFile(vtt, null, "transcript");
    expect(parsed.speakers).toHaveLength(MAX_TRANSCRIPT_SPEAKERS);
    expect(parsed.segments.at(-1)).toMatchObject({ speaker: "SPEAKER_49", text: "Person 59: line 59" });
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SrtParser from "srt-parser-2";
import { WebVTTParser, type WebVTTCue } from "webvtt-parser";
import { SAMPLE_META, SAMPLE_TRANSCRIPT } from "../../test/fixtures/transcripts/sample.ts";
import { randomUnicode, seededRandom } from "../../test/support/random-unicode.ts";
import { asElementText, xmlErrors } from "../../test/support/strict-xml.ts";
import { secondsToMs } from "./normalize.ts";
import {
  TRANSCRIPT_FORMATS,
  isTranscriptFormat,
  renderTranscript,
  type TranscriptDocument,
  type TranscriptFormat,
  type TranscriptSegment,
} from "./render.ts";

const FIXTURES = join(import.meta.dir, "../../test/fixtures/transcripts");
const META = SAMPLE_META;

function doc(segments: TranscriptSegment[], extra: Partial<TranscriptDocument> = {}): TranscriptDocument {
  return {
    object: "transcript",
    meeting_id: "7d4c0f5e-1b2a-4c3d-8e9f-0a1b2c3d4e5f",
    language: "en",
    duration_seconds: 60,
    model: "test-model",
    speakers: [...new Set(segments.map((s) => s.speaker))],
    segments,
    speaker_turns: [],
    ...extra,
  };
}

function seg(start: number, end: number, text: string, speaker = "SPEAKER_00", speaker_name: string | null = null): TranscriptSegment {
  return { start, end, speaker, speaker_name, text };
}

const decodeHtml = (html: string) => html.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");

const render = (d: TranscriptDocument, format: TranscriptFormat) => renderTranscript(d, format, META).body;

/** The sample's cues as every reader must see them: times in ms, the speaker and the one-line text. */
const SAMPLE_CUES = [
  { start: 0, end: 4200, name: "Élodie Martin", text: "Bonjour à tous, merci d'être là." },
  { start: 4200, end: 9750, name: "Élodie Martin", text: "On commence par le café ☕ et le budget 2025." },
  { start: 10500, end: 12340, name: "SPEAKER_01", text: "我们开始吧。🎉" },
  { start: 12340, end: 15000, name: "SPEAKER_02", text: "Tags like <b> & arrows --> stay literal. Second line." },
  { start: 15500, end: 3661250, name: "SPEAKER_01", text: "Une très longue intervention 😅" },
  { start: 3661250, end: 3725000, name: "Élodie Martin", text: "À bientôt !" },
];

describe("sample transcript, byte for byte", () => {
  for (const format of TRANSCRIPT_FORMATS) {
    test(`${format} matches sample.${format}`, () => {
      const rendered = renderTranscript(SAMPLE_TRANSCRIPT, format, SAMPLE_META);
      const expected = readFileSync(join(FIXTURES, `sample.${format}`));
      expect(rendered.body).toBe(expected.toString("utf8"));
      expect(Buffer.from(rendered.body, "utf8").equals(expected)).toBe(true);
      expect(rendered.fileExtension).toBe(format);
    });
  }

  test("media types", () => {
    const types = Object.fromEntries(TRANSCRIPT_FORMATS.map((f) => [f, renderTranscript(SAMPLE_TRANSCRIPT, f, META).contentType]));
    expect(types).toEqual({
      json: "application/json",
      md: "text/markdown; charset=utf-8",
      txt: "text/plain; charset=utf-8",
      srt: "application/x-subrip; charset=utf-8",
      vtt: "text/vtt; charset=utf-8",
    });
  });

  test("json parses back to the document with normalized times", () => {
    const parsed = JSON.parse(render(SAMPLE_TRANSCRIPT, "json")) as TranscriptDocument;
    expect(parsed).toEqual({
      ...SAMPLE_TRANSCRIPT,
      segments: SAMPLE_TRANSCRIPT.segments.map((s, i) => ({ ...s, start: SAMPLE_CUES[i]!.start / 1000, end: SAMPLE_CUES[i]!.end / 1000 })),
      speaker_turns: [
        { start: 0.12, end: 9.75, speaker: "SPEAKER_00" },
        { start: 10.5, end: 12.34, speaker: "SPEAKER_01" },
        { start: 12.34, end: 15, speaker: "SPEAKER_02" },
        { start: 15.5, end: 3661.25, speaker: "SPEAKER_01" },
        { start: 3661.25, end: 3725, speaker: "SPEAKER_00" },
      ],
    });
  });
});

/** Runs ffmpeg on a file and returns what it wrote to stdout; fails the test on a non-zero exit. */
function ffmpegConvert(input: string, outputFormat: "srt" | "webvtt"): string {
  const ffmpeg = Bun.which("ffmpeg");
  if (!ffmpeg) throw new Error("ffmpeg is not on PATH (scripts/setup.sh installs it)");
  const proc = Bun.spawnSync([ffmpeg, "-nostdin", "-v", "error", "-i", input, "-f", outputFormat, "-"], { stdout: "pipe", stderr: "pipe" });
  expect(proc.stderr.toString()).toBe("");
  expect(proc.exitCode).toBe(0);
  return proc.stdout.toString();
}

/** Timing lines of SRT or WebVTT output, as [startMs, endMs]; hours optional, as ffmpeg writes WebVTT. */
function timings(text: string): [number, number][] {
  const stamp = String.raw`(?:(\d+):)?(\d{2}):(\d{2})[,.](\d{3})`;
  const re = new RegExp(String.raw`^${stamp} --> ${stamp}`, "gm");
  const toMs = (h: string | undefined, m: string, s: string, ms: string) => ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms);
  return [...text.matchAll(re)].map((m) => [toMs(m[1], m[2]!, m[3]!, m[4]!), toMs(m[5], m[6]!, m[7]!, m[8]!)]);
}

describe("ffmpeg reads the subtitle files", () => {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "verbatim-transcripts-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const expected = SAMPLE_CUES.map((c): [number, number] => [c.start, c.end]);

  test("srt", () => {
    const file = join(dir, "sample.srt");
    writeFileSync(file, render(SAMPLE_TRANSCRIPT, "srt"));
    const out = timings(ffmpegConvert(file, "srt"));
    expect(out.length).toBe(SAMPLE_CUES.length);
    expect(out[0]).toEqual(expected[0]!);
    expect(out.at(-1)).toEqual(expected.at(-1)!);
    expect(out).toEqual(expected);
  });

  test("vtt", () => {
    const file = join(dir, "sample.vtt");
    writeFileSync(file, render(SAMPLE_TRANSCRIPT, "vtt"));
    const out = timings(ffmpegConvert(file, "webvtt"));
    expect(out.length).toBe(SAMPLE_CUES.length);
    expect(out[0]).toEqual(expected[0]!);
    expect(out.at(-1)).toEqual(expected.at(-1)!);
    expect(out).toEqual(expected);
  });
});

/**
 * Cue text of a parsed WebVTT cue, tags dropped (the parser decodes the text's escapes), and its
 * <v> annotation: WebVTT's syntax has & and > escaped there too, which webvtt-parser 2.2.0 leaves
 * undecoded, so this decodes &amp; &lt; &gt; as a player's tokenizer does.
 */
function voiceAndText(cue: WebVTTCue): { name: string | undefined; text: string } {
  let name: string | undefined;
  const decode = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const walk = (nodes: WebVTTCue["tree"]["children"]): string =>
    nodes
      .map((node) => {
        if (node.type === "text") return String(node.value);
        if (node.name === "v") name = decode(String(node.value));
        return walk(node.children ?? []);
      })
      .join("");
  const text = walk(cue.tree.children);
  return { name, text };
}

// The full HTML entity table, as webvtt-parser's README advises for spec-compliant parsing (its
// built-in short table mis-decodes "&lt;" as "<;").
const VTT_ENTITIES = JSON.parse(readFileSync(Bun.resolveSync("webvtt-parser/html-entities.json", import.meta.dir), "utf8")) as Record<string, string>;

function parseVtt(body: string) {
  return new WebVTTParser(VTT_ENTITIES).parse(body, "metadata");
}

describe("standard parsers read every cue back", () => {
  test("srt-parser-2: count, times and text of every cue", () => {
    const cues = new SrtParser().fromSrt(render(SAMPLE_TRANSCRIPT, "srt"));
    expect(cues.map((c) => ({ id: c.id, start: Math.round(c.startSeconds * 1000), end: Math.round(c.endSeconds * 1000), text: c.text }))).toEqual(
      // SubRip has no escapes: the arrow is the one thing written differently.
      SAMPLE_CUES.map((c, i) => ({ id: String(i + 1), start: c.start, end: c.end, text: `${c.name}: ${c.text.replace("-->", "->")}` })),
    );
  });

  test("webvtt-parser (W3C validator): no errors; count, times, voice and text of every cue", () => {
    const { cues, errors } = parseVtt(render(SAMPLE_TRANSCRIPT, "vtt"));
    expect(errors).toEqual([]);
    expect(cues.map((c) => ({ start: Math.round(c.startTime * 1000), end: Math.round(c.endTime * 1000), ...voiceAndText(c) }))).toEqual(
      SAMPLE_CUES.map((c) => ({ start: c.start, end: c.end, name: c.name, text: c.text })),
    );
  });
});

describe("edge cases", () => {
  const empty = doc([], { language: null, duration_seconds: null, speakers: [] });

  test("an empty transcript renders a valid file in every format", () => {
    expect(render(empty, "srt")).toBe("");
    expect(render(empty, "txt")).toBe("");
    expect(render(empty, "vtt")).toBe("WEBVTT\n");
    expect(parseVtt(render(empty, "vtt"))).toMatchObject({ cues: [], errors: [] });
    expect(render(empty, "md")).toBe("# Weekly sync \\#12: budget & \\[roadmap\\]\n\nDate: 2025-03-14\n\nNo speech was detected.\n");
    expect(JSON.parse(render(empty, "json"))).toEqual(empty);
  });

  test("segments with only blank text are not cues, but stay in json", () => {
    const d = doc([seg(1, 2, "  \n "), seg(3, 4, "Hi")]);
    expect(render(d, "srt")).toBe("1\n00:00:03,000 --> 00:00:04,000\nSPEAKER_00: Hi\n");
    expect(render(d, "txt")).toBe("[00:00:03] SPEAKER_00: Hi\n");
    expect(render(d, "md")).toEndWith("\n\n**SPEAKER_00** [00:00:03]\nHi\n");
    expect(JSON.parse(render(d, "json")).segments).toHaveLength(2);
  });

  test("segments out of order are rendered in time order", () => {
    const d = doc([seg(20, 25, "third", "SPEAKER_01"), seg(5, 9, "first"), seg(10, 12, "second", "SPEAKER_01"), seg(4.5, 7, "zeroth")]);
    const order = ["zeroth", "first", "second", "third"];
    expect(render(d, "txt")).toBe(
      "[00:00:04] SPEAKER_00: zeroth\n[00:00:05] SPEAKER_00: first\n[00:00:10] SPEAKER_01: second\n[00:00:20] SPEAKER_01: third\n",
    );
    expect(timings(render(d, "srt"))).toEqual([[4500, 7000], [5000, 9000], [10000, 12000], [20000, 25000]]);
    expect(new SrtParser().fromSrt(render(d, "srt")).map((c) => [c.id, c.text])).toEqual(order.map((t, i) => [String(i + 1), `SPEAKER_0${i < 2 ? 0 : 1}: ${t}`]));
    // The WebVTT parser sorts cues itself: read the file's own order from its timing lines.
    expect(timings(render(d, "vtt"))).toEqual([[4500, 7000], [5000, 9000], [10000, 12000], [20000, 25000]]);
    expect(parseVtt(render(d, "vtt")).cues.map((c) => voiceAndText(c).text)).toEqual(order);
    expect(JSON.parse(render(d, "json")).segments.map((s: TranscriptSegment) => s.text)).toEqual(order);
    // Merged in the Markdown once in order: SPEAKER_00 twice, then SPEAKER_01 twice.
    expect(render(d, "md")).toEndWith("**SPEAKER_00** [00:00:04]\nzeroth first\n\n**SPEAKER_01** [00:00:10]\nsecond third\n");
  });

  test("segments starting at the same millisecond keep their stored order", () => {
    const d = doc([seg(5, 9, "long first"), seg(5.0000001, 6, "short second", "SPEAKER_01"), seg(5, 5.5, "shorter third")]);
    expect(render(d, "txt")).toBe("[00:00:05] SPEAKER_00: long first\n[00:00:05] SPEAKER_01: short second\n[00:00:05] SPEAKER_00: shorter third\n");
    expect(timings(render(d, "srt"))).toEqual([[5000, 9000], [5000, 6000], [5000, 5500]]);
  });

  test("negative, NaN and infinite times never reach the output", () => {
    const d = doc([seg(-3, -1, "negative"), seg(Number.NaN, 2.5, "nan start"), seg(4, Number.NaN, "nan end"), seg(Number.POSITIVE_INFINITY, 1, "infinite")]);
    for (const format of TRANSCRIPT_FORMATS) {
      const body = render(d, format);
      expect(body).not.toMatch(format === "json" ? /NaN|Infinity|"(start|end)":(-|null)/ : /NaN|Infinity|(?<!\d)-\d/);
    }
    const json = JSON.parse(render(d, "json")) as TranscriptDocument;
    expect(json.segments.map((s) => [s.start, s.end, s.text])).toEqual([
      [0, 0, "negative"],
      [0, 2.5, "nan start"],
      [0, 1, "infinite"],
      [4, 4, "nan end"],
    ]);
    expect(timings(render(d, "srt"))).toEqual([[0, 1], [0, 2500], [0, 1000], [4000, 4001]]);
    const vtt = parseVtt(render(d, "vtt"));
    expect(vtt.errors).toEqual([]);
    expect(vtt.cues).toHaveLength(4);
  });

  test("a cue always ends after it starts, also once rounded", () => {
    const d = doc([seg(7, 7, "zero length"), seg(9, 8, "backwards"), seg(1.0004, 1.0001, "sub-millisecond")]);
    expect(timings(render(d, "srt"))).toEqual([[1000, 1001], [7000, 7001], [9000, 9001]]);
    expect(timings(render(d, "vtt"))).toEqual([[1000, 1001], [7000, 7001], [9000, 9001]]);
    expect(new SrtParser().fromSrt(render(d, "srt")).map((c) => c.endSeconds > c.startSeconds)).toEqual([true, true, true]);
    expect(parseVtt(render(d, "vtt")).errors).toEqual([]);
    // json keeps the zero length (data, not a cue) but never an end before the start.
    expect(JSON.parse(render(d, "json")).segments.map((s: TranscriptSegment) => [s.start, s.end])).toEqual([[1, 1], [7, 7], [9, 9]]);
  });

  test("times round to the nearest millisecond, whatever the float noise", () => {
    expect(secondsToMs(12.3400000001)).toBe(12340);
    expect(secondsToMs(12.340000000000001)).toBe(12340);
    expect(secondsToMs(0.1 + 0.2)).toBe(300);
    expect(secondsToMs(1.0005)).toBe(1001); // 1000.4999999999999 in binary
    expect(secondsToMs(59.9996)).toBe(60000);
    expect(secondsToMs(1.2344)).toBe(1234);
    expect(secondsToMs(-0)).toBe(0);
    const d = doc([seg(59.9996, 3599.9995, "carry")]);
    expect(render(d, "srt")).toBe("1\n00:01:00,000 --> 01:00:00,000\nSPEAKER_00: carry\n");
    expect(render(d, "txt")).toBe("[00:01:00] SPEAKER_00: carry\n");
  });

  test("hours past 99 widen instead of wrapping", () => {
    const d = doc([seg(100 * 3600 + 1.5, 100 * 3600 + 2, "late")]);
    expect(render(d, "srt")).toBe("1\n100:00:01,500 --> 100:00:02,000\nSPEAKER_00: late\n");
    expect(render(d, "vtt")).toBe("WEBVTT\n\n100:00:01.500 --> 100:00:02.000\n<v SPEAKER_00>late\n");
    expect(parseVtt(render(d, "vtt"))).toMatchObject({ errors: [], cues: [{ startTime: 360001.5, endTime: 360002 }] });
    expect(render(d, "txt")).toBe("[100:00:01] SPEAKER_00: late\n");
  });

  test("no blank line inside a cue, whatever line breaks the text holds", () => {
    const d = doc([seg(1, 2, "one\n\ntwo\r\n\r\nthree\rfour\u2028five\t \n six"), seg(3, 4, "seven")]);
    const line = "one two three four five six";
    expect(render(d, "srt")).toBe(`1\n00:00:01,000 --> 00:00:02,000\nSPEAKER_00: ${line}\n\n2\n00:00:03,000 --> 00:00:04,000\nSPEAKER_00: seven\n`);
    expect(parseVtt(render(d, "vtt")).cues.map((c) => voiceAndText(c).text)).toEqual([line, "seven"]);
    expect(render(d, "txt").split("\n")).toHaveLength(3);
  });

  test("speaker_name is shown when set, the label otherwise, and escaped per format", () => {
    const d = doc([seg(1, 2, "hello", "SPEAKER_03", "Ann <&> --> *Bee*"), seg(3, 4, "hi", "SPEAKER_04", "   ")]);
    expect(render(d, "txt")).toBe("[00:00:01] Ann <&> --> *Bee*: hello\n[00:00:03] SPEAKER_04: hi\n");
    expect(render(d, "srt")).toContain("\nAnn <&> -> *Bee*: hello\n");
    expect(render(d, "vtt")).toContain("\n<v Ann &lt;&amp;&gt; --&gt; *Bee*>hello\n");
    const { cues, errors } = parseVtt(render(d, "vtt"));
    expect(errors).toEqual([]);
    expect(cues.map(voiceAndText)).toEqual([{ name: "Ann <&> --> *Bee*", text: "hello" }, { name: "SPEAKER_04", text: "hi" }]);
    expect(render(d, "md")).toContain("**Ann \\<&> --> \\*Bee\\*** [00:00:01]\nhello\n\n**SPEAKER_04** [00:00:03]\nhi\n");
  });

  test("markdown: user text cannot open a heading, list, quote, code, table or link", () => {
    const lines: [string, string][] = [
      ["# Heading", "\\# Heading"],
      ["## Heading", "\\## Heading"],
      ["> quote", "\\> quote"],
      ["- item", "\\- item"],
      ["+ item", "\\+ item"],
      ["* item", "\\* item"],
      ["1. item", "1\\. item"],
      ["2) item", "2\\) item"],
      ["===", "\\==="],
      ["---", "\\---"],
      ["```js", "\\`\\`\\`js"],
      ["~~~", "\\~\\~\\~"],
      ["<script>alert(1)</script>", "\\<script>alert(1)\\</script>"],
      ["<!-- hidden -->", "\\<!-- hidden -->"],
      ["|---|", "\\|---\\|"],
      [":-:", "\\:-:"],
      ["[click](https://evil.example) ![x](y)", "\\[click\\](https://evil.example) !\\[x\\](y)"],
      ["[00:00:01]: https://evil.example", "\\[00:00:01\\]: https://evil.example"],
      ["<https://evil.example>", "\\<https://evil.example>"],
      ["_emph_ and snake_case and __init__", "\\_emph\\_ and snake_case and \\_\\_init\\_\\_"],
      ["back\\slash `code` **bold** ~~strike~~", "back\\\\slash \\`code\\` \\*\\*bold\\*\\* \\~\\~strike\\~\\~"],
      ["AT&T &amp; &#35; &x", "AT&T \\&amp; \\&#35; &x"],
      ["Price is 5 # not a heading", "Price is 5 # not a heading"],
    ];
    const d = doc(lines.map(([text], i) => seg(i, i + 0.5, text, `SPEAKER_${String(i).padStart(2, "0")}`)));
    const body = render(d, "md");
    const paragraphs = body.trimEnd().split("\n\n").slice(2);
    expect(paragraphs.map((p) => p.split("\n")[1])).toEqual(lines.map(([, escaped]) => escaped));
    // Every block is exactly a name line and a text line.
    for (const p of paragraphs) expect(p).toMatch(/^\*\*SPEAKER_\d\d\*\* \[\d\d:\d\d:\d\d\]\n[^\n]+$/);
    // And a CommonMark + GFM renderer (Bun's) shows every text literally, in plain paragraphs.
    const html = Bun.markdown.html(body);
    expect(new Set(html.match(/<\/?[a-z][a-z0-9]*/g))).toEqual(new Set(["<h1", "</h1", "<p", "</p", "<strong", "</strong"]));
    const shown = [...html.matchAll(/<p><strong>SPEAKER_\d\d<\/strong> \[[\d:]+\]\n(.*)<\/p>/g)].map((m) => decodeHtml(m[1]!));
    expect(shown).toEqual(lines.map(([text]) => text));
  });

  test("markdown: the sample renders as a heading and one plain paragraph per block", () => {
    const html = Bun.markdown.html(readFileSync(join(FIXTURES, "sample.md"), "utf8"));
    expect(html.match(/<h1>(.*)<\/h1>/)?.[1]).toBe("Weekly sync #12: budget &amp; [roadmap]");
    expect([...html.matchAll(/<strong>[^<]*<\/strong>/g)].map((m) => m[0])).toEqual(
      ["Élodie Martin", "SPEAKER_01", "SPEAKER_02", "SPEAKER_01", "Élodie Martin"].map((n) => `<strong>${n}</strong>`),
    );
    expect(html).toContain("\nTags like &lt;b&gt; &amp; arrows --&gt; stay literal. Second line.</p>");
  });

  test("markdown header: title escaped, unknown parts left out, any RFC 3339 offset", () => {
    const d = doc([seg(0, 1, "x")], { language: null, duration_seconds: null });
    expect(renderTranscript(d, "md", { title: "## *Q3* <plan>\nreview", recordedAt: "2024-12-31T23:30:00-05:00" }).body).toStartWith(
      "# \\#\\# \\*Q3\\* \\<plan> review\n\nDate: 2024-12-31\n\n**SPEAKER_00**",
    );
    expect(renderTranscript(d, "md", { title: "  ", recordedAt: "not a date" }).body).toStartWith("# Transcript\n\n**SPEAKER_00**");
    const full = doc([seg(0, 1, "x")], { language: "zh", duration_seconds: 59 });
    expect(renderTranscript(full, "md", { title: "T", recordedAt: "2024-01-02T03:04:05.678Z" }).body).toStartWith(
      "# T\n\nDate: 2024-01-02 · Duration: 0:00:59 · Language: zh\n\n",
    );
    const long = doc([], { duration_seconds: 100 * 3600 + 61 });
    expect(render(long, "md")).toContain("Duration: 100:01:01");
  });

  test("json: keys in the specification's order whatever the stored order", () => {
    const scrambled = {
      speaker_turns: [{ speaker: "SPEAKER_00", end: 2, start: 1 }],
      segments: [{ text: "t", speaker_name: null, speaker: "SPEAKER_00", end: 2, start: 1 }],
      speakers: ["SPEAKER_00"],
      model: null,
      duration_seconds: 2.4,
      language: null,
      meeting_id: "7d4c0f5e-1b2a-4c3d-8e9f-0a1b2c3d4e5f",
      object: "transcript",
    } as TranscriptDocument;
    expect(render(scrambled, "json")).toBe(
      '{"object":"transcript","meeting_id":"7d4c0f5e-1b2a-4c3d-8e9f-0a1b2c3d4e5f","language":null,"duration_seconds":2,"model":null,"speakers":["SPEAKER_00"],"segments":[{"start":1,"end":2,"speaker":"SPEAKER_00","speaker_name":null,"text":"t"}],"speaker_turns":[{"start":1,"end":2,"speaker":"SPEAKER_00"}]}',
    );
  });

  test("format names", () => {
    expect(TRANSCRIPT_FORMATS).toEqual(["json", "md", "txt", "srt", "vtt"]);
    for (const f of TRANSCRIPT_FORMATS) expect(isTranscriptFormat(f)).toBe(true);
    for (const f of ["JSON", "html", "", undefined, 1]) expect(isTranscriptFormat(f)).toBe(false);
    expect(() => renderTranscript(SAMPLE_TRANSCRIPT, "html" as TranscriptFormat, META)).toThrow(RangeError);
  });
});

describe("characters XML forbids (issue 20, item 7)", () => {
  test("random Unicode in words and names: md, txt, srt and vtt pass a strict XML parser as element text", async () => {
    const seed = Date.now();
    const random = seededRandom(seed);
    const segments = Array.from({ length: 60 }, (_, i) => seg(i, i + 0.5, `${randomUnicode(random, 30)}\u0001\uFFFE\uD800`, `SPEAKER_0${i % 3}`, randomUnicode(random, 5)));
    const document = doc(segments, { language: `fr${randomUnicode(random, 3)}` });
    const meta = { ...META, title: `${randomUnicode(random, 10)}\u0008\u0000` };
    const outputs = (["md", "txt", "srt", "vtt"] as const).map((format) => `<${format}>${asElementText(renderTranscript(document, format, meta).body)}</${format}>`);
    expect(await xmlErrors(`<formats seed="${seed}">${outputs.join("\n")}</formats>`)).toBe("");
  });
});

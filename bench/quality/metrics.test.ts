// Metric code of the quality harness (bench/quality.ts) on hand-made cases with known answers.
import { describe, expect, test } from "bun:test";
import {
  diarizationErrorRate,
  hungarian,
  maximumWeightAssignment,
  mergeIntervals,
  normalizeText,
  parseReferenceJson,
  parseRttm,
  speakerAttribution,
  tokenize,
  wordErrorRate,
  type Turn,
} from "./metrics.ts";

const turn = (speaker: string, start: number, end: number): Turn => ({ speaker, start, end });

describe("normalizeText", () => {
  test("lower case, punctuation out, white space collapsed", () => {
    expect(normalizeText("  Hello,   World!  How are you?\n")).toBe("hello world how are you");
    expect(normalizeText("«Bonjour» — dit-il…")).toBe("bonjour dit il");
    expect(normalizeText("hello,world")).toBe("hello world");
  });

  test("apostrophes inside words are kept (one token), others removed; typographic ones unified", () => {
    expect(normalizeText("Don't stop, l’équipe s'occupe d’aujourd'hui")).toBe("don't stop l'équipe s'occupe d'aujourd'hui");
    expect(normalizeText("'Quoted' and the dogs' toys")).toBe("quoted and the dogs toys");
    expect(tokenize("L'équipe")).toEqual(["l'équipe"]);
  });

  test("NFKC: ligatures, full-width forms and decomposed accents", () => {
    expect(normalizeText("ﬁnance ＡＢＣ")).toBe("finance abc");
    expect(normalizeText("cafe\u0301")).toBe(normalizeText("café"));
  });

  test("numbers are left as they are, decimal and thousands separators kept", () => {
    expect(normalizeText("It costs $12.50, up 3,5 % from 1,000.")).toBe("it costs 12.50 up 3,5 from 1,000");
    expect(normalizeText("Twelve percent")).toBe("twelve percent");
    expect(normalizeText("12:30 e.g.")).toBe("12 30 e g");
  });

  test("lower case follows the language's locale when given", () => {
    expect(normalizeText("DİYARBAKIR", "tr")).toBe("diyarbakır");
    expect(normalizeText("ÉTÉ", "not a locale!")).toBe("été");
  });

  test("unspaced scripts are tokenized per character", () => {
    expect(tokenize("我们开会。")).toEqual(["我", "们", "开", "会"]);
    expect(tokenize("コーヒーを")).toEqual(["コ", "ー", "ヒ", "ー", "を"]);
    expect(tokenize("hello 世界 ok")).toEqual(["hello", "世", "界", "ok"]);
  });
});

describe("wordErrorRate", () => {
  test("identical text: 0", () => {
    expect(wordErrorRate("the quick brown fox", "the quick brown fox")).toEqual({
      wer: 0,
      substitutions: 0,
      deletions: 0,
      insertions: 0,
      hits: 4,
      referenceWords: 4,
      hypothesisWords: 4,
    });
  });

  test("one substitution in four words: 0.25", () => {
    expect(wordErrorRate("the cat sat down", "the cat sat up")).toMatchObject({ wer: 0.25, substitutions: 1, deletions: 0, insertions: 0, hits: 3 });
  });

  test("deletions and insertions are counted apart", () => {
    expect(wordErrorRate("a b c d", "a c")).toMatchObject({ wer: 0.5, substitutions: 0, deletions: 2, insertions: 0 });
    expect(wordErrorRate("a b", "x a b y")).toMatchObject({ wer: 1, substitutions: 0, deletions: 0, insertions: 2 });
    expect(wordErrorRate("a b c", "a x c d")).toMatchObject({ substitutions: 1, deletions: 0, insertions: 1, hits: 2 });
  });

  test("WER can exceed 1", () => {
    expect(wordErrorRate("yes", "no no no")).toMatchObject({ wer: 3, substitutions: 1, insertions: 2 });
  });

  test("empty cases", () => {
    expect(wordErrorRate("", "")).toMatchObject({ wer: 0, referenceWords: 0, hypothesisWords: 0 });
    expect(wordErrorRate("  ...  ", "")).toMatchObject({ wer: 0 }); // punctuation only is empty
    expect(wordErrorRate("", "two words")).toMatchObject({ wer: 1, insertions: 2, referenceWords: 0 });
    expect(wordErrorRate("three words here", "")).toMatchObject({ wer: 1, deletions: 3, hypothesisWords: 0 });
  });

  test("case and punctuation do not count", () => {
    expect(wordErrorRate("Good morning, everyone. Let's start!", "good morning everyone let's start").wer).toBe(0);
    expect(wordErrorRate("Good morning, everyone.", "good morning every one")).toMatchObject({ substitutions: 1, insertions: 1 });
  });

  test("a French sentence with accents and apostrophes", () => {
    const reference = "Très bien. Qui s'occupe de la documentation pour l'équipe ?";
    expect(wordErrorRate(reference, "très bien qui s’occupe de la documentation pour l’équipe").wer).toBe(0);
    // "tres" without its accent and "l equipe" split in two: 1 substitution, then 1 substitution + 1 insertion.
    const result = wordErrorRate(reference, "tres bien qui s'occupe de la documentation pour l equipe", { language: "fr" });
    expect(result).toMatchObject({ referenceWords: 9, substitutions: 2, insertions: 1, deletions: 0 });
    expect(result.wer).toBeCloseTo(3 / 9, 12);
  });

  test("arrays are taken as tokens, without normalization", () => {
    expect(wordErrorRate(["A", "b"], ["a", "b"])).toMatchObject({ substitutions: 1, wer: 0.5 });
  });

  test("character scripts: a character error rate", () => {
    expect(wordErrorRate("我们开会", "我们开始会")).toMatchObject({ referenceWords: 4, insertions: 1, wer: 0.25 });
  });
});

describe("hungarian", () => {
  test("3x3 with a known optimum", () => {
    const cost = [
      [4, 1, 3],
      [2, 0, 5],
      [3, 2, 2],
    ];
    expect(hungarian(cost)).toEqual([1, 0, 2]); // 1 + 2 + 2 = 5, the only assignment of cost 5
  });

  test("rectangular matrices leave rows or columns out", () => {
    expect(hungarian([[5, 1, 9]])).toEqual([1]);
    expect(hungarian([[5], [1], [9]])).toEqual([-1, 0, -1]);
    expect(hungarian([])).toEqual([]);
    expect(hungarian([[], []])).toEqual([-1, -1]);
  });

  test("maximumWeightAssignment maximises", () => {
    expect(maximumWeightAssignment([
      [10, 0],
      [9, 1],
    ])).toEqual([0, 1]);
    expect(maximumWeightAssignment([
      [7, 9],
      [8, 1],
    ])).toEqual([1, 0]);
  });

  test("agrees with exhaustive search on random matrices", () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const permutations = (n: number): number[][] =>
      n === 0 ? [[]] : permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + (trial % 5);
      const cost = Array.from({ length: n }, () => Array.from({ length: n }, () => Math.floor(random() * 20) - 5));
      const best = Math.min(...permutations(n).map((p) => p.reduce((sum, c, r) => sum + cost[r]![c]!, 0)));
      const found = hungarian(cost);
      expect(new Set(found).size).toBe(n);
      expect(found.reduce((sum, c, r) => sum + cost[r]![c]!, 0)).toBe(best);
    }
  });
});

describe("speakerAttribution", () => {
  const reference = [turn("A", 0, 10), turn("B", 10, 20)];

  test("perfect with swapped labels: the mapping is found, accuracy 1", () => {
    const result = speakerAttribution(reference, [turn("B", 0, 10), turn("A", 10, 20)]);
    expect(result).toMatchObject({ coverage: 1, accuracy: 1, mapping: { B: "A", A: "B" }, referenceSeconds: 20, referenceSpeakers: 2, hypothesisSpeakers: 2 });
  });

  test("one label for two speakers: half wrong", () => {
    const result = speakerAttribution(reference, [turn("SPEAKER_00", 0, 20)]);
    expect(result.accuracy).toBe(0.5);
    expect(result.coverage).toBe(1);
    expect(["A", "B"]).toContain(result.mapping.SPEAKER_00!);
  });

  test("half the time given to the other speaker", () => {
    const ref = [turn("A", 0, 10), turn("B", 10, 20), turn("A", 20, 30), turn("B", 30, 40)];
    const hyp = [turn("X", 0, 10), turn("Y", 10, 20), turn("Y", 20, 30), turn("X", 30, 40)];
    expect(speakerAttribution(ref, hyp)).toMatchObject({ accuracy: 0.5, coverage: 1 });
  });

  test("an extra hypothesis speaker stays unmapped", () => {
    const result = speakerAttribution(reference, [turn("X", 0, 10), turn("Y", 10, 18), turn("Z", 18, 20)]);
    expect(result.mapping).toEqual({ X: "A", Y: "B", Z: null });
    expect(result.accuracy).toBeCloseTo(0.9, 12);
    expect(result.coverage).toBe(1);
    expect(result.hypothesisSpeakers).toBe(3);
  });

  test("coverage with gaps; hypothesis speech outside the reference does not count", () => {
    const result = speakerAttribution(reference, [turn("X", 0, 4), turn("Y", 12, 20), turn("X", 25, 30)]);
    expect(result.coverage).toBeCloseTo(0.6, 12);
    expect(result.accuracy).toBeCloseTo(0.6, 12);
    expect(result).toMatchObject({ coveredSeconds: 12, correctSeconds: 12, mapping: { X: "A", Y: "B" } });
  });

  test("overlapping reference speakers each count", () => {
    // 0-5 A alone, 5-10 A and B, 10-15 B alone: 20 speaker-seconds; one hypothesis speaker at a time.
    const result = speakerAttribution([turn("A", 0, 10), turn("B", 5, 15)], [turn("X", 0, 10), turn("Y", 10, 15)]);
    expect(result).toMatchObject({ referenceSeconds: 20, correctSeconds: 15, coverage: 1, accuracy: 0.75, mapping: { X: "A", Y: "B" } });
  });

  test("a speaker's own overlapping turns are merged", () => {
    const result = speakerAttribution([turn("A", 0, 6), turn("A", 4, 10)], [turn("X", 0, 10)]);
    expect(result).toMatchObject({ referenceSeconds: 10, accuracy: 1 });
  });

  test("no reference speech: NaN", () => {
    const result = speakerAttribution([], [turn("X", 0, 1)]);
    expect(result.accuracy).toBeNaN();
    expect(result.coverage).toBeNaN();
  });

  test("boundaries are rounded to the grid", () => {
    const ref = [turn("A", 0, 1.004)];
    expect(speakerAttribution(ref, [turn("X", 0, 1)]).accuracy).toBe(1); // 10 ms grid
    expect(speakerAttribution(ref, [turn("X", 0, 1)], { gridSeconds: 0 }).accuracy).toBeCloseTo(1 / 1.004, 12);
  });
});

describe("diarizationErrorRate", () => {
  const reference = [turn("A", 0, 10), turn("B", 10, 20)];

  test("perfect (labels differ): 0", () => {
    expect(diarizationErrorRate(reference, [turn("s1", 0, 10), turn("s0", 10, 20)])).toEqual({
      der: 0,
      missed: 0,
      falseAlarm: 0,
      confusion: 0,
      total: 20,
      mapping: { s1: "A", s0: "B" },
    });
  });

  test("all missed: 1", () => {
    expect(diarizationErrorRate(reference, [])).toMatchObject({ der: 1, missed: 20, falseAlarm: 0, confusion: 0, total: 20 });
  });

  test("false alarm only", () => {
    expect(diarizationErrorRate(reference, [turn("X", 0, 10), turn("Y", 10, 20), turn("Y", 20, 25)])).toMatchObject({
      der: 0.25,
      missed: 0,
      falseAlarm: 5,
      confusion: 0,
    });
    // A second speaker over the first one's speech is a false alarm too.
    expect(diarizationErrorRate([turn("A", 0, 10)], [turn("X", 0, 10), turn("Y", 0, 2)])).toMatchObject({
      der: 0.2,
      falseAlarm: 2,
      confusion: 0,
      mapping: { X: "A", Y: null },
    });
  });

  test("confusion only", () => {
    expect(diarizationErrorRate(reference, [turn("X", 0, 15), turn("Y", 15, 20)])).toMatchObject({
      der: 0.25,
      missed: 0,
      falseAlarm: 0,
      confusion: 5,
      mapping: { X: "A", Y: "B" },
    });
  });

  test("a mix: missed, false alarm and confusion", () => {
    // 0-2 missed; 2-10 right; 10-14 X over B (confusion); 14-20 right; 20-23 false alarm.
    const result = diarizationErrorRate(reference, [turn("X", 2, 14), turn("Y", 14, 23)]);
    expect(result).toMatchObject({ missed: 2, falseAlarm: 3, confusion: 4, total: 20 });
    expect(result.der).toBeCloseTo(9 / 20, 12);
  });

  test("collar: boundary errors within the collar are not scored", () => {
    const hypothesis = [turn("X", 0, 10.2), turn("Y", 10.2, 20)];
    const strict = diarizationErrorRate(reference, hypothesis);
    expect(strict).toMatchObject({ confusion: 0.2, total: 20 });
    expect(strict.der).toBeCloseTo(0.01, 12);
    // ±0.25 s around 0, 10 (A's end and B's start) and 20: 9.5 + 9.5 s scored, all right.
    expect(diarizationErrorRate(reference, hypothesis, { collar: 0.25 })).toMatchObject({ der: 0, confusion: 0, total: 19 });
    // A collar narrower than the error leaves the rest of it.
    expect(diarizationErrorRate(reference, hypothesis, { collar: 0.1 })).toMatchObject({ confusion: 0.1, total: 19.6 });
  });

  test("overlapped reference speech: each speaker counts, or is skipped", () => {
    const ref = [turn("A", 0, 12), turn("B", 5, 15)];
    const hyp = [turn("X", 0, 15)];
    // 0-5 right; 5-12 A and B, X maps to A: B missed (7); 12-15 B but X: confusion (3). Total 5 + 14 + 3.
    const all = diarizationErrorRate(ref, hyp);
    expect(all).toMatchObject({ missed: 7, confusion: 3, falseAlarm: 0, total: 22, mapping: { X: "A" } });
    expect(all.der).toBeCloseTo(10 / 22, 12);
    expect(diarizationErrorRate(ref, hyp, { skipOverlap: true })).toMatchObject({ der: 0.375, missed: 0, confusion: 3, total: 8 });
  });

  test("empty reference", () => {
    expect(diarizationErrorRate([], [])).toMatchObject({ der: 0, total: 0 });
    expect(diarizationErrorRate([], [turn("X", 1, 3)])).toMatchObject({ der: 1, falseAlarm: 2, total: 0 });
  });

  test("rejects non-numeric times", () => {
    expect(() => diarizationErrorRate([turn("A", NaN, 1)], [])).toThrow(/finite/);
  });
});

describe("parseRttm", () => {
  const sample = [
    ";; a comment",
    "SPKR-INFO sample 1 <NA> <NA> <NA> unknown speaker90 <NA> <NA>",
    "SPEAKER sample 1 6.690 0.430 <NA> <NA> speaker90 <NA> <NA>",
    "",
    "SPEAKER sample 1 7.550 0.800 <NA> <NA> speaker91 <NA> <NA>",
    "SPEAKER  sample 1   8.320 1.700 <NA> <NA> speaker90 <NA> <NA>\r",
  ].join("\n");

  test("a 3-line sample", () => {
    const turns = parseRttm(sample);
    expect(turns).toEqual([
      { file: "sample", channel: "1", speaker: "speaker90", start: 6.69, end: 7.12 },
      { file: "sample", channel: "1", speaker: "speaker91", start: 7.55, end: 8.35 },
      { file: "sample", channel: "1", speaker: "speaker90", start: 8.32, end: 10.02 },
    ]);
    expect(diarizationErrorRate(turns, turns).der).toBe(0);
  });

  test("a malformed SPEAKER line is reported with its number", () => {
    expect(() => parseRttm("SPEAKER sample 1 6.690 0.430 <NA> <NA> speaker90 <NA> <NA>\nSPEAKER sample 1 x 1")).toThrow(/line 2/);
  });
});

describe("parseReferenceJson", () => {
  test("the fixtures' shape: turns with text, joined in time order", () => {
    const reference = parseReferenceJson(
      JSON.stringify({
        language: "fr",
        duration_seconds: 12.5,
        speakers: ["A", "B"],
        turns: [
          { speaker: "B", start: 5, end: 9, text: "Le prototype sera prêt." },
          { speaker: "A", start: 0.5, end: 4, text: " Bonjour à tous. " },
        ],
      }),
    );
    expect(reference).toEqual({
      language: "fr",
      durationSeconds: 12.5,
      speakers: ["A", "B"],
      turns: [
        { speaker: "A", start: 0.5, end: 4, text: " Bonjour à tous. " },
        { speaker: "B", start: 5, end: 9, text: "Le prototype sera prêt." },
      ],
      text: "Bonjour à tous. Le prototype sera prêt.",
    });
  });

  test("the service's transcript JSON (segments) is a reference too", () => {
    const reference = parseReferenceJson({
      object: "transcript",
      language: "en",
      duration_seconds: 3,
      model: "m",
      speakers: ["SPEAKER_00"],
      segments: [{ start: 0, end: 3, speaker: "SPEAKER_00", speaker_name: null, text: "Hello there." }],
    });
    expect(reference).toMatchObject({ language: "en", speakers: ["SPEAKER_00"], text: "Hello there.", turns: [{ speaker: "SPEAKER_00", start: 0, end: 3 }] });
  });

  test("turns without text: no text; speakers from the turns", () => {
    const reference = parseReferenceJson({ turns: [{ speaker: 1, start: 0, end: 1 }, { speaker: "0", start: 1, end: 2 }] });
    expect(reference).toMatchObject({ language: null, durationSeconds: null, speakers: ["1", "0"], text: null });
  });

  test("invalid documents are refused", () => {
    expect(() => parseReferenceJson("[]")).toThrow(/object/);
    expect(() => parseReferenceJson({})).toThrow(/turns/);
    expect(() => parseReferenceJson({ turns: [{ speaker: "A", start: 2, end: 1 }] })).toThrow(/turns\[0\]/);
    expect(() => parseReferenceJson({ turns: [{ start: 0, end: 1 }] })).toThrow(/speaker/);
  });
});

test("mergeIntervals", () => {
  expect(mergeIntervals([[5, 6], [0, 2], [1, 3], [3, 4], [7, 7]])).toEqual([[0, 4], [5, 6]]);
});

describe("against a naive 10 ms frame count with exhaustive mapping", () => {
  /** DER and attribution the slow, obvious way: 10 ms frames (centre rule), every mapping tried. */
  function naive(ref: Turn[], hyp: Turn[], collar: number) {
    const frames = 3000;
    const active = (turns: Turn[], name: string, i: number) => turns.some((t) => t.speaker === name && (i + 0.5) / 100 > t.start && (i + 0.5) / 100 < t.end);
    const refNames = [...new Set(ref.map((t) => t.speaker))];
    const hypNames = [...new Set(hyp.map((t) => t.speaker))];
    // Collars go around the edges of each speaker's merged speech, not inside it.
    const edges = refNames.flatMap((n) => mergeIntervals(ref.filter((t) => t.speaker === n).map((t) => [t.start, t.end])).flat());
    const scored = (i: number) => !edges.some((e) => Math.abs((i + 0.5) / 100 - e) < collar);
    const grids = Array.from({ length: frames }, (_, i) => ({
      scored: scored(i),
      refs: refNames.filter((n) => active(ref, n, i)),
      hyps: hypNames.filter((n) => active(hyp, n, i)),
    }));
    // Every injective partial map hypothesis -> reference, as an array of reference names or null.
    const maps: (string | null)[][] = [[]];
    for (let h = 0; h < hypNames.length; h++) {
      const next: (string | null)[][] = [];
      for (const m of maps) for (const r of [null, ...refNames]) if (r === null || !m.includes(r)) next.push([...m, r]);
      maps.splice(0, maps.length, ...next);
    }
    let best = { correct: -1, der: 0 };
    for (const m of maps) {
      let total = 0, errors = 0, correct = 0;
      for (const g of grids) {
        if (!g.scored) continue;
        const c = g.hyps.filter((h) => m[hypNames.indexOf(h)] !== null && g.refs.includes(m[hypNames.indexOf(h)]!)).length;
        total += g.refs.length;
        correct += c;
        errors += Math.max(g.refs.length, g.hyps.length) - c;
      }
      if (correct > best.correct) best = { correct, der: total ? errors / total : errors ? 1 : 0 };
    }
    return best.der;
  }

  test("random turns on a 10 ms grid agree", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const turns = (speakers: string[], count: number) =>
      Array.from({ length: count }, () => {
        const start = Math.round(random() * 2500) / 100;
        return turn(speakers[Math.floor(random() * speakers.length)]!, start, Math.min(30, start + Math.round((0.2 + random() * 6) * 100) / 100));
      });
    for (let trial = 0; trial < 25; trial++) {
      const ref = turns(["A", "B", "C"].slice(0, 1 + (trial % 3)), 2 + (trial % 5));
      const hyp = turns(["x", "y", "z"].slice(0, 1 + ((trial + 1) % 3)), 1 + (trial % 6));
      const collar = trial % 2 ? 0.25 : 0;
      expect(diarizationErrorRate(ref, hyp, { collar }).der).toBeCloseTo(naive(ref, hyp, collar), 9);
    }
  });
});

import { describe, expect, test } from "bun:test";
import { wordingFor } from "./language.ts";
import { buildPrompt, formatTimestamp, formatTranscriptLine, needsHours, renderPartReport } from "./prompt.ts";
import { DEFAULT_REPORT_LIMITS } from "./schema.ts";

const limits = DEFAULT_REPORT_LIMITS;

describe("prompt", () => {
  test("transcript lines read [mm:ss] SPEAKER_00: text, with hours past an hour", () => {
    expect(formatTranscriptLine({ start: 75.9, end: 80, speaker: "SPEAKER_00", text: "  Hello\n there " })).toBe("[01:15] SPEAKER_00: Hello there");
    expect(formatTimestamp(3725, true)).toBe("1:02:05");
    expect(formatTimestamp(65)).toBe("01:05");
    expect(needsHours([{ start: 3599, end: 3601, speaker: "S", text: "x" }])).toBe(true);
    expect(needsHours([{ start: 0, end: 10, speaker: "S", text: "x" }])).toBe(false);
  });

  test("English instructions say which language to write in", () => {
    const en = buildPrompt({ kind: "single" }, "[00:00] SPEAKER_00: hi", "en", limits);
    expect(en.user).toContain("Write every text in English.");
    expect(en.user).toContain("Now write the JSON report, in English.");
    expect(en.user).toContain(`at most ${limits.title} characters`);
    expect(en.user).toContain("Transcript:\n[00:00] SPEAKER_00: hi");
    expect(en.system).toContain("never invent");
    const de = buildPrompt({ kind: "single" }, "x", "de", limits);
    expect(de.user).toContain("Write every text in German.");
    const unknown = buildPrompt({ kind: "single" }, "x", null, limits);
    expect(unknown.user).toContain("in the language of the transcript");
  });

  test("a French meeting gets French instructions", () => {
    const fr = buildPrompt({ kind: "chunk", index: 2, count: 3, from: "10:00", to: "20:00" }, "x", "fr", limits);
    expect(fr.user).toContain("Rédige tous les textes en français.");
    expect(fr.user).toContain("Voici la partie 2 sur 3");
    expect(fr.system).toContain("n'invente jamais");
  });

  test("the compact form is much shorter and keeps the task, the language and the body", () => {
    const full = buildPrompt({ kind: "merge", count: 4 }, "BODY", "en", limits);
    const compact = buildPrompt({ kind: "merge", count: 4 }, "BODY", "en", limits, true);
    expect(compact.user.length).toBeLessThan(full.user.length / 3);
    expect(compact.user).toContain("4 parts");
    expect(compact.user).toContain("in English");
    expect(compact.user).toContain("BODY");
  });

  test("a part's report is rendered compactly for the merge prompt", () => {
    const text = renderPartReport(
      {
        title: "T",
        summary: "S",
        key_takeaways: [],
        action_items: [{ text: "Do it", owner: "Anna", due: null }],
        decisions: ["D"],
        minutes: [],
      },
      { index: 2, from: "10:00", to: "20:00" },
      "en",
    );
    expect(text).toBe("Part 2 (10:00–20:00)\nTitle: T\nSummary: S\nAction items:\n- Do it (owner: Anna)\nDecisions:\n- D");
  });

  test("the part reports use the report's own headings, in the prompt's language (French, else English)", () => {
    const report = { title: "T", summary: "S", key_takeaways: ["K"], action_items: [{ text: "A", owner: "Anna", due: "lundi" }], decisions: ["D"], minutes: ["M"] };
    for (const [language, wording] of [["fr", wordingFor("fr")], ["de", wordingFor("en")]] as const) {
      const text = renderPartReport(report, { index: 1, from: "00:00", to: "10:00" }, language);
      for (const heading of [wording.summary, wording.keyTakeaways, wording.actionItems, wording.decisions, wording.minutes]) expect(text).toContain(heading);
      expect(text).toContain(`(${wording.owner.toLowerCase()}: Anna; ${wording.due.toLowerCase()}: lundi)`);
    }
  });
});

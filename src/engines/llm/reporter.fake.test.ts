/** The report logic over a scripted runtime: chunking, merging, retries, cancel and titles, without a model. */
import { describe, expect, test } from "bun:test";
import { EngineError, type ReportInput, type StructuredReport } from "../types.ts";
import type { Prompt } from "./prompt.ts";
import type { GenerateOptions } from "./runtime.ts";
import { createReporterWithRuntime, type ReportStats } from "./reporter.ts";
import { DEFAULT_REPORT_LIMITS, validateReport, type ReportLimits } from "./schema.ts";
import { engineError } from "../../../test/support/engines.ts";
import { fakeRuntime } from "../../../test/support/fake-llm.ts";

const report = (over: Partial<StructuredReport> = {}): StructuredReport => ({
  title: "Weekly sync",
  summary: "The team planned the week.",
  key_takeaways: ["Release on Friday."],
  action_items: [{ text: "Write the release notes.", owner: "Anna", due: "Thursday" }],
  decisions: ["Ship version 2."],
  minutes: ["Anna opened the meeting."],
  ...over,
});

function transcript(lines: number): ReportInput["transcript"] {
  return Array.from({ length: lines }, (_, i) => ({
    start: i * 10,
    end: i * 10 + 9,
    speaker: `SPEAKER_0${i % 3}`,
    text: `Line ${i}: we talked about item ${i} and what to do about it next week.`,
  }));
}

function run(reporter: ReturnType<typeof createReporterWithRuntime>, input: Partial<ReportInput>, signal = new AbortController().signal) {
  const progress: number[] = [];
  const result = reporter.report(
    { title: null, language: "en", transcript: transcript(5), ...input },
    { signal, progress: (f) => progress.push(f) },
  );
  return { result, progress };
}

describe("reporter logic (scripted runtime)", () => {
  test("a transcript that fits: one call, [mm:ss] SPEAKER lines, the model's title, markdown from the structure", async () => {
    const fake = fakeRuntime(8192, () => JSON.stringify(report()));
    let stats: ReportStats | undefined;
    const reporter = createReporterWithRuntime(fake.runtime, "test-model", { onStats: (s) => (stats = s) });
    const { result, progress } = run(reporter, {});
    const done = await result;
    expect(fake.calls.length).toBe(1);
    expect(fake.calls[0]!.user).toContain("[00:10] SPEAKER_01: Line 1: we talked about item 1");
    expect(fake.calls[0]!.user).toContain("Write every text in English.");
    expect(done.title).toBe("Weekly sync");
    expect(done.model).toBe("test-model");
    expect(done.language).toBe("en");
    expect(done.markdown).toContain("- [ ] Write the release notes. (Owner: Anna · Due: Thursday)");
    expect(stats).toMatchObject({ chunks: 1, modelCalls: 1, merge: "none", prompt: "full", retries: 0 });
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  test("the meeting's own title stays; an empty AI title falls back to a dated one in the meeting's language", async () => {
    const fake = fakeRuntime(8192, () => JSON.stringify(report({ title: "   " })));
    const reporter = createReporterWithRuntime(fake.runtime, "m", { now: () => new Date("2024-06-01T10:00:00Z") });
    const kept = await run(reporter, { title: "  Board meeting " }).result;
    expect(kept.title).toBe("Board meeting");
    expect(kept.structured.title).toBe("Meeting of 2024-06-01");
    expect(kept.markdown.startsWith("# Board meeting\n")).toBe(true);
    const fr = await run(reporter, { language: "fr" }).result;
    expect(fr.title).toBe("Réunion du 2024-06-01");
    expect(fr.markdown).toContain("## Résumé");
    expect(fake.calls.at(-1)!.user).toContain("Rédige tous les textes en français.");
  });

  test("a long transcript is reported on in parts on line boundaries, then merged by the model", async () => {
    const fake = fakeRuntime(2048, (prompt, call) =>
      prompt.user.includes("Below are the reports")
        ? JSON.stringify(report({ title: "Merged" }))
        : JSON.stringify(report({ title: `Part ${call}`, minutes: [`minute of part ${call}`] })),
    );
    let stats: ReportStats | undefined;
    const reporter = createReporterWithRuntime(fake.runtime, "m", { onStats: (s) => (stats = s) });
    const lines = transcript(120);
    const done = await run(reporter, { transcript: lines }).result;
    expect(stats!.chunks).toBeGreaterThan(1);
    expect(stats!.merge).toBe("model");
    const partCalls = fake.calls.filter((c) => c.user.includes("Below is part"));
    expect(partCalls.length).toBe(stats!.chunks);
    // Every line in exactly one part, in order.
    const seen = partCalls.flatMap((c) => c.user.split("\n").filter((l) => /^\[\d\d:\d\d\] SPEAKER_/.test(l)));
    expect(seen.length).toBe(lines.length);
    expect(seen[0]).toStartWith("[00:00] SPEAKER_00: Line 0:");
    expect(seen.at(-1)).toStartWith("[19:50] SPEAKER_02: Line 119:");
    const merge = fake.calls.at(-1)!.user;
    expect(merge).toContain("Part 1 (00:00–");
    expect(merge).toContain("minute of part 0");
    expect(done.structured.title).toBe("Merged");
    expect(validateReport(done.structured)).toEqual([]);
  });

  test("when the parts' reports cannot be merged in the context, a deterministic merge keeps every part", async () => {
    // Answers at the grammar's bounds make any two parts too long for one merge prompt.
    const full = (_: Prompt, call: number, options: GenerateOptions) => {
      const l = (options.grammar as unknown as { limits: ReportLimits }).limits;
      const text = (prefix: string, length: number) => `${prefix} `.padEnd(length, "x");
      return JSON.stringify({
        title: text(`T${call}`, l.title),
        summary: text(`part ${call}`, l.summary),
        key_takeaways: Array.from({ length: l.keyTakeaways }, (_, i) => text(`p${call} k${i}`, l.item)),
        action_items: Array.from({ length: l.actionItems }, (_, i) => ({ text: text(`p${call} a${i}`, l.item), owner: text("o", l.owner), due: text("d", l.due) })),
        decisions: Array.from({ length: l.decisions }, (_, i) => text(`p${call} d${i}`, l.item)),
        minutes: Array.from({ length: l.minutes }, (_, i) => text(`p${call} m${i}`, l.item)),
      });
    };
    const fake = fakeRuntime(2048, full);
    let stats: ReportStats | undefined;
    const reporter = createReporterWithRuntime(fake.runtime, "m", { onStats: (s) => (stats = s) });
    const done = await run(reporter, { transcript: transcript(60) }).result;
    expect(stats!.chunks).toBeGreaterThan(1);
    expect(stats!.merge).toBe("deterministic");
    expect(fake.calls.length).toBe(stats!.chunks);
    expect(validateReport(done.structured)).toEqual([]);
    for (let part = 0; part < stats!.chunks; part++) expect(done.structured.minutes.some((m) => m.startsWith(`p${part} `))).toBe(true);
  });

  test("many small parts are merged in groups, then the groups' reports", async () => {
    const fake = fakeRuntime(1024, (prompt, call) =>
      JSON.stringify(report({ title: `R${call}`, summary: "s".repeat(200), key_takeaways: [], decisions: [], minutes: [`m${call}`] })),
    );
    let stats: ReportStats | undefined;
    const reporter = createReporterWithRuntime(fake.runtime, "m", { onStats: (s) => (stats = s) });
    const done = await run(reporter, { transcript: transcript(300) }).result;
    const merges = fake.calls.filter((c) => /reports of the \d+ (consecutive )?parts/i.test(c.user));
    expect(stats!.merge).toBe("model");
    expect(merges.length).toBeGreaterThan(1);
    expect(stats!.modelCalls).toBe(stats!.chunks + merges.length);
    expect(validateReport(done.structured)).toEqual([]);
  });

  test("an unusable answer is tried again; twice unusable → retryable llm_invalid_output", async () => {
    const flaky = fakeRuntime(8192, (_, call) => (call === 0 ? '{"title": "Bad \uFFFD' : JSON.stringify(report())));
    let stats: ReportStats | undefined;
    const ok = await run(createReporterWithRuntime(flaky.runtime, "m", { onStats: (s) => (stats = s) }), {}).result;
    expect(ok.title).toBe("Weekly sync");
    expect(stats).toMatchObject({ modelCalls: 2, retries: 1 });

    const broken = fakeRuntime(8192, () => ({ text: '{"title": "cut', stopReason: "maxTokens" }));
    const error = await engineError(run(createReporterWithRuntime(broken.runtime, "m", {}), {}).result);
    expect(error.code).toBe("llm_invalid_output");
    expect(error.retryable).toBe(true);
    expect(broken.calls.length).toBe(2);
    // The retry after a cut-off answer asks for shorter fields.
    const summaryLimit = (p: Prompt) => Number(/summary: [^\n]*at most (\d+) characters/.exec(p.user)![1]);
    expect(summaryLimit(broken.calls[1]!)).toBeLessThan(summaryLimit(broken.calls[0]!));
    expect(summaryLimit(broken.calls[0]!)).toBeLessThanOrEqual(DEFAULT_REPORT_LIMITS.summary);
  });

  test("cancel: before the start nothing runs; during a call it stops with EngineError canceled", async () => {
    const fake = fakeRuntime(8192, (_, __, options) => {
      controller.abort();
      return options.signal.aborted ? { text: "", stopReason: "abort" } : JSON.stringify(report());
    });
    const reporter = createReporterWithRuntime(fake.runtime, "m", {});
    const aborted = new AbortController();
    aborted.abort();
    const before = await engineError(run(reporter, {}, aborted.signal).result);
    expect(before.code).toBe("canceled");
    expect(before.retryable).toBe(false);
    expect(fake.calls.length).toBe(0);
    const controller = new AbortController();
    const during = await engineError(run(reporter, {}, controller.signal).result);
    expect(during.code).toBe("canceled");
    expect(fake.calls.length).toBe(1);
  });

  test("reports run one at a time on the shared context; close waits for them", async () => {
    const fake = fakeRuntime(8192, async () => {
      await Bun.sleep(5);
      return JSON.stringify(report());
    });
    const reporter = createReporterWithRuntime(fake.runtime, "m", {});
    const all = Promise.all([run(reporter, {}).result, run(reporter, {}).result, run(reporter, {}).result]);
    const closing = reporter.close();
    expect((await all).length).toBe(3);
    await closing;
    expect(fake.overlapped()).toBe(false);
    expect(fake.closed()).toBe(true);
    expect((await engineError(run(reporter, {}).result)).code).toBe("engine_closed");
  });

  test("an empty transcript makes an empty report without asking the model", async () => {
    const fake = fakeRuntime(8192, () => JSON.stringify(report()));
    const done = await run(createReporterWithRuntime(fake.runtime, "m", { now: () => new Date("2024-06-01T00:00:00Z") }), {
      transcript: [{ start: 0, end: 1, speaker: "SPEAKER_00", text: "  " }],
    }).result;
    expect(fake.calls.length).toBe(0);
    expect(done.title).toBe("Meeting of 2024-06-01");
    expect(validateReport(done.structured)).toEqual([]);
    expect(done.markdown).toContain("## Minutes\n\n_None._");
  });

  test("a context too small for any answer is a clear, non-retryable error", async () => {
    const fake = fakeRuntime(128, () => JSON.stringify(report()));
    const error = await engineError(run(createReporterWithRuntime(fake.runtime, "m", {}), {}).result);
    expect(error.code).toBe("llm_context_too_small");
    expect(error.retryable).toBe(false);
  });
});

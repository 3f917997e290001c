/** The shared model-call loop over a scripted runtime: counting, retries, the shrinking bound, cancel and progress. */
import { describe, expect, test } from "bun:test";
import { fakeRuntime, type Answer } from "../../../test/support/fake-llm.ts";
import { EngineError } from "../types.ts";
import { ask, CallProgress, type AskCounters, type AskSettings, type Question } from "./ask.ts";
import type { GenerateOptions } from "./runtime.ts";

const canceled = () => new EngineError("canceled", "canceled", false);
const unusable = () => new EngineError("llm_invalid_output", "unusable", true);

function setup(answer: (call: number, options: GenerateOptions) => Answer, over: Partial<AskSettings> = {}) {
  const fake = fakeRuntime(4096, (_prompt, call, options) => answer(call, options));
  const progress: number[] = [];
  const stats: AskCounters = { modelCalls: 0, retries: 0, promptTokens: 0, outputTokens: 0, generationMs: 0 };
  const settings: AskSettings = {
    runtime: fake.runtime,
    signal: new AbortController().signal,
    outputBudget: 100,
    temperature: 0.2,
    retryTemperature: 0.4,
    seed: 7,
    attempts: 2,
    stats,
    progress: new CallProgress({ signal: new AbortController().signal, progress: (f) => progress.push(f) }),
    canceled,
    ...over,
  };
  return { fake, settings, stats, progress };
}

/** A question bounded by a number of characters: the prompt names the bound, the answer must be "ok". */
function question(seen: number[] = []): Question<number, string> {
  return {
    bound: 1000,
    grammar: async () => ({ parse: (text: string) => JSON.parse(text) as unknown }),
    prompt: (bound) => {
      seen.push(bound);
      return { system: "s", user: `at most ${bound}` };
    },
    parse: (grammar, generation) => {
      if (generation.stopReason === "maxTokens") throw unusable();
      const value = grammar.parse(generation.text);
      if (value !== "ok") throw unusable();
      return "answer";
    },
    shrink: (bound) => Math.floor(bound / 2),
  };
}

describe("ask (the shared model-call loop)", () => {
  test("a usable answer: one call, its tokens and time counted", async () => {
    const { settings, stats } = setup(() => JSON.stringify("ok"));
    expect(await ask(settings, question())).toBe("answer");
    expect(stats).toMatchObject({ modelCalls: 1, retries: 0, generationMs: 1 });
    expect(stats.promptTokens).toBeGreaterThan(0);
    expect(stats.outputTokens).toBe(1);
  });

  test("an unusable answer is asked again with another seed and the retry temperature; a cut-off one with a smaller bound", async () => {
    const options: GenerateOptions[] = [];
    const { settings, stats } = setup(
      (call, o) => {
        options.push(o);
        return call === 0 ? { text: '"o', stopReason: "maxTokens" } : JSON.stringify("ok");
      },
      { attempts: 3 },
    );
    const bounds: number[] = [];
    expect(await ask(settings, question(bounds))).toBe("answer");
    expect(bounds).toEqual([1000, 500]);
    expect(options.map((o) => [o.seed, o.temperature])).toEqual([
      [7, 0.2],
      [8, 0.4],
    ]);
    expect(stats).toMatchObject({ modelCalls: 2, retries: 1 });
  });

  test("a wrong answer that was not cut off keeps its bound; the last attempt's error is thrown", async () => {
    const { settings, stats } = setup(() => JSON.stringify("no"));
    const bounds: number[] = [];
    await expect(ask(settings, question(bounds))).rejects.toMatchObject({ code: "llm_invalid_output", retryable: true });
    expect(bounds).toEqual([1000, 1000]);
    expect(stats).toMatchObject({ modelCalls: 2, retries: 1 });
  });

  test("a caller that keeps no generation time is not given one", async () => {
    const { settings } = setup(() => JSON.stringify("ok"));
    const stats: AskCounters = { modelCalls: 0, retries: 0, promptTokens: 0, outputTokens: 0 };
    await ask({ ...settings, stats }, question());
    expect(stats.generationMs).toBeUndefined();
  });

  test("cancel: an aborted signal stops before the call, and an aborted call is not retried", async () => {
    const controller = new AbortController();
    controller.abort();
    const before = setup(() => JSON.stringify("ok"), { signal: controller.signal });
    await expect(ask(before.settings, question())).rejects.toMatchObject({ code: "canceled" });
    expect(before.fake.calls).toHaveLength(0);
    const during = setup(() => ({ text: "", stopReason: "abort" }));
    await expect(ask(during.settings, question())).rejects.toMatchObject({ code: "canceled" });
    expect(during.stats.modelCalls).toBe(1);
  });

  test("progress rises across the planned calls, below 1", async () => {
    // Each answer fills its whole budget (one token): a call's end is its share of the plan.
    const { settings, progress } = setup(() => JSON.stringify("ok"), { outputBudget: 1 });
    settings.progress.plan(2);
    await ask(settings, question());
    settings.progress.addCalls(2); // 4 calls in all: the second ends at 2/4, no rise over 1/2
    for (let call = 0; call < 3; call++) await ask(settings, question());
    expect(progress).toEqual([0.5, 0.75, 0.99]);
  });
});

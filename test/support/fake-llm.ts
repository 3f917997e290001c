// A scripted LLM runtime for the report and document logic, without a model.
import { expect } from "bun:test";
import type { Prompt } from "../../src/engines/llm/prompt.ts";
import type { Generation, GenerateOptions, LlmRuntime } from "../../src/engines/llm/runtime.ts";

export type Answer = string | { text: string; stopReason: string };

/** A scripted LlmRuntime: tokens are 4 characters, answers come from `answer`, calls are recorded and must fit the context. */
export function fakeRuntime(contextSize: number, answer: (prompt: Prompt, call: number, options: GenerateOptions) => Answer | Promise<Answer>) {
  const tokens = (text: string) => Math.ceil(text.length / 4);
  const calls: Prompt[] = [];
  let running = 0;
  let overlapped = false;
  let closed = false;
  const runtime: LlmRuntime = {
    contextSize,
    gpu: false,
    threads: 2,
    countTokens: tokens,
    countPromptTokens: (prompt) => tokens(prompt.system) + tokens(prompt.user) + 8,
    grammarFor: async (limits) => ({ parse: (text: string) => JSON.parse(text) as unknown, limits }),
    jsonGrammar: async (schema) => ({ parse: (text: string) => JSON.parse(text) as unknown, schema }),
    async generate(prompt, options): Promise<Generation> {
      if (running++ > 0) overlapped = true;
      try {
        calls.push(prompt);
        expect(runtime.countPromptTokens(prompt) + options.maxTokens).toBeLessThanOrEqual(contextSize);
        await Bun.sleep(1);
        const a = await answer(prompt, calls.length - 1, options);
        const { text, stopReason } = typeof a === "string" ? { text: a, stopReason: "eogToken" } : a;
        options.onTokens?.(tokens(text));
        return { text, stopReason, promptTokens: runtime.countPromptTokens(prompt), outputTokens: tokens(text), ms: 1 };
      } finally {
        running--;
      }
    },
    async close() {
      closed = true;
    },
  };
  return { runtime, calls, overlapped: () => overlapped, closed: () => closed };
}


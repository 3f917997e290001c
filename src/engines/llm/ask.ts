/**
 * The one model-call loop the report and the documents share: a call under a grammar, its tokens
 * counted, progress reported by the tokens generated, the answer parsed, and an unusable answer
 * asked again (another seed, more temperature, and a smaller bound after a cut-off) up to the
 * number of attempts. What differs between the two is the question: its bound, grammar, prompt,
 * parse and how the bound shrinks.
 */
import { EngineError, type StepContext } from "../types.ts";
import type { Prompt } from "./prompt.ts";
import type { Generation, LlmRuntime, ReportGrammar } from "./runtime.ts";

/** What the loop counts, in the caller's own stats object. */
export interface AskCounters {
  modelCalls: number;
  retries: number;
  promptTokens: number;
  outputTokens: number;
  /** Time inside the model calls, when the caller keeps it. */
  generationMs?: number;
}

/**
 * Progress across the calls of one step: calls done out of calls planned, with the current call's
 * share by the tokens it generated; only rising values, at most 0.99 (the step says 1 at its end).
 */
export class CallProgress {
  private planned = 1;
  private done = 0;
  private reported = 0;

  constructor(private readonly context: StepContext) {}

  /** The step makes `calls` model calls in all (the final one included). */
  plan(calls: number): void {
    this.planned = calls;
  }

  /** The step makes `calls` more calls than planned (a merge round). */
  addCalls(calls: number): void {
    this.planned += calls;
  }

  /** The current call has generated `share` (0 to 1) of its output budget. */
  during(share: number): void {
    const value = Math.min(0.99, (this.done + Math.min(1, share)) / this.planned);
    if (value > this.reported + 0.01) {
      this.reported = value;
      this.context.progress(value);
    }
  }

  /** A call gave a usable answer. */
  callDone(): void {
    this.done++;
  }
}

/** The settings shared by every call of one step. */
export interface AskSettings {
  runtime: LlmRuntime;
  signal: AbortSignal;
  /** Tokens reserved for each answer. */
  outputBudget: number;
  temperature: number;
  /** The lowest temperature of a second or later attempt. */
  retryTemperature: number;
  seed: number;
  /** Tries per call (at least 1). */
  attempts: number;
  stats: AskCounters;
  progress: CallProgress;
  /** The error a canceled step throws. */
  canceled: () => EngineError;
}

/** One question to the model, bounded by `B` (the report's limits, a document's characters). */
export interface Question<B, T> {
  bound: B;
  grammar(bound: B): Promise<ReportGrammar>;
  prompt(bound: B): Prompt;
  /** The answer, or a throw (a retryable EngineError) when it is unusable. */
  parse(grammar: ReportGrammar, generation: Generation): T;
  /** The bound of the next attempt after an answer cut off at the output token limit. */
  shrink(bound: B): B;
}

/** One call under the grammar, asked again on an unusable answer until `attempts` run out. */
export async function ask<B, T>(settings: AskSettings, question: Question<B, T>): Promise<T> {
  const { runtime, signal, outputBudget, stats, progress } = settings;
  let bound = question.bound;
  for (let attempt = 0; ; attempt++) {
    const prompt = question.prompt(bound);
    const grammar = await question.grammar(bound);
    if (signal.aborted) throw settings.canceled();
    const generation = await runtime.generate(prompt, {
      grammar,
      maxTokens: outputBudget,
      temperature: attempt === 0 ? settings.temperature : Math.max(settings.temperature, settings.retryTemperature),
      seed: settings.seed + attempt,
      signal,
      onTokens: (generated) => progress.during(generated / outputBudget),
    });
    stats.modelCalls++;
    stats.promptTokens += generation.promptTokens;
    stats.outputTokens += generation.outputTokens;
    if (stats.generationMs !== undefined) stats.generationMs += generation.ms;
    if (generation.stopReason === "abort" || signal.aborted) throw settings.canceled();
    try {
      const answer = question.parse(grammar, generation);
      progress.callDone();
      return answer;
    } catch (error) {
      if (attempt + 1 >= settings.attempts) throw error;
      stats.retries++;
      if (generation.stopReason === "maxTokens") bound = question.shrink(bound);
    }
  }
}

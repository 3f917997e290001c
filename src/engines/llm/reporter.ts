/**
 * The report engine: the local LLM writes the structured report under the JSON-schema grammar,
 * one pass when the transcript fits in the context, else one pass per part and a merge; our code
 * renders the markdown.
 */
import { EngineError, type DocumentWriter, type ReportInput, type ReportResult, type Reporter, type StepContext, type StructuredReport } from "../types.ts";
import { ask, CallProgress, type AskSettings } from "./ask.ts";
import { wordingFor } from "./language.ts";
import { renderMarkdown } from "./markdown.ts";
import { deterministicMerge } from "./merge.ts";
import { checkGgufModel } from "./gguf-check.ts";
import { clip, parseModelOutput } from "./parse.ts";
import { charsPerTokenOf, outputBudgetFor, planParts, reduceInGroups, transcriptLines, type TranscriptLine } from "./passes.ts";
import { buildPrompt, renderPartReport, type Prompt, type PromptTask } from "./prompt.ts";
import { loadLlamaRuntime, type LlmRuntime } from "./runtime.ts";
import { writeDocument } from "./writer.ts";
import { entityFinderWithRuntime } from "./entities.ts";
import type { EntityFinder } from "../../redaction/types.ts";
import { serialQueue } from "../serial.ts";
import type { ModelSource } from "../model-file.ts";
import { DEFAULT_REPORT_LIMITS, limitsForOutputTokens, minimumOutputTokens, type ReportLimits } from "./schema.ts";

export interface LlamaReporterOptions {
  modelPath: ModelSource;
  /** Threads for prompt processing and generation alike. */
  threads: number;
  /** "auto": a CUDA (or other GPU) build when a device is present, the CPU otherwise. */
  gpu: "auto" | false;
  /** Tokens of context; defaults to the model's training context, at most 8192. */
  contextSize?: number;
  /** Tokens reserved for each answer (at most 60% of the context); defaults to 40% of the context, at most 2048. */
  maxOutputTokens?: number;
  /** Defaults to 0.2. */
  temperature?: number;
  /** Defaults to 42. */
  seed?: number;
  /** Tries per model call when the answer is unusable (cut off, invalid UTF-8); defaults to 2. */
  attempts?: number;
  /** Called after each report with what it took. */
  onStats?: (stats: ReportStats) => void;
  /** The clock for the fallback title's date. */
  now?: () => Date;
}

export interface ReportStats {
  /** Parts the transcript was split into (1 when it fit in one pass). */
  chunks: number;
  /** Generations run, retries included. */
  modelCalls: number;
  retries: number;
  merge: "none" | "model" | "deterministic";
  /** "compact" when the full instructions would take over a quarter of the context. */
  prompt: "full" | "compact";
  promptTokens: number;
  outputTokens: number;
  /** Time inside the model calls, and for the whole report. */
  generationMs: number;
  totalMs: number;
  /** Output tokens per second of generation time (prompt processing included). */
  tokensPerSecond: number;
  contextSize: number;
  outputBudget: number;
  transcriptBudget: number;
  charsPerToken: number;
  limits: ReportLimits;
}

export type LlamaReporter = Reporter &
  DocumentWriter &
  EntityFinder & {
  close(): Promise<void>;
  /** The model's name, as reported in results. */
  readonly model: string;
  readonly contextSize: number;
  /** The GPU type in use, or false on the CPU. */
  readonly gpu: string | false;
};

interface Part {
  report: StructuredReport;
  from: string;
  to: string;
}

function canceled(): EngineError {
  return new EngineError("canceled", "The report was canceled.", false);
}

/** Loads llama.cpp and the model once; the reporter reuses them (and one context) for every report. */
export async function createLlamaReporter(options: LlamaReporterOptions): Promise<LlamaReporter> {
  const { name } = await checkGgufModel(options.modelPath);
  const runtime = await loadLlamaRuntime({
    modelPath: options.modelPath,
    threads: options.threads,
    gpu: options.gpu,
    contextSize: options.contextSize,
  });
  return createReporterWithRuntime(runtime, name, options);
}

/** The reporter over any runtime (tests use a scripted one). */
export function createReporterWithRuntime(
  runtime: LlmRuntime,
  modelName: string,
  options: Omit<LlamaReporterOptions, "modelPath" | "threads" | "gpu">,
): LlamaReporter {
  const queue = serialQueue();
  let closed = false;
  const { temperature, seed, attempts } = options;
  const finder = entityFinderWithRuntime(runtime, { seed, attempts, ...(temperature === undefined ? {} : { temperature: Math.min(temperature, 0.2) }) }, (task) => queue.run(task));
  return {
    model: modelName,
    contextSize: runtime.contextSize,
    gpu: runtime.gpu,
    report(input, context) {
      if (closed) return Promise.reject(new EngineError("engine_closed", "The report engine is closed.", false));
      return queue.run(() => writeReport(runtime, modelName, options, input, context));
    },
    // Documents share the model, its context and the queue: one generation at a time.
    write(input, context) {
      if (closed) return Promise.reject(new EngineError("engine_closed", "The document engine is closed.", false));
      const { maxOutputTokens, temperature, seed, attempts } = options;
      return queue.run(() => writeDocument(runtime, modelName, { maxOutputTokens, temperature, seed, attempts }, input, context));
    },
    // Names and addresses for redaction: the same model, context and queue again.
    find(text, kinds, signal) {
      if (closed) return Promise.reject(new EngineError("engine_closed", "The entity finder is closed.", false));
      return finder.find(text, kinds, signal);
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue.idle();
      await runtime.close();
    },
  };
}

async function writeReport(
  runtime: LlmRuntime,
  modelName: string,
  options: Omit<LlamaReporterOptions, "modelPath" | "threads" | "gpu">,
  input: ReportInput,
  context: StepContext,
): Promise<ReportResult> {
  const { signal } = context;
  if (signal.aborted) throw canceled();
  const started = performance.now();
  const language = input.language;
  const contextSize = runtime.contextSize;
  const margin = Math.max(16, Math.ceil(contextSize * 0.02));
  const temperature = options.temperature ?? 0.2;
  const seed = options.seed ?? 42;
  const attempts = Math.max(1, options.attempts ?? 2);

  const { lines, withHours } = transcriptLines(input.transcript);
  // How many characters a token holds for this model and this language, measured on the transcript.
  const charsPerToken = charsPerTokenOf(lines.map((line) => line.text).join("\n"), runtime.countTokens.bind(runtime));
  // Tokens for each answer: 40% of the context (at most 2048), or what the smallest bounds need, up to 60%.
  const outputBudget = outputBudgetFor(contextSize, minimumOutputTokens(charsPerToken), options.maxOutputTokens);
  const fitted = limitsForOutputTokens(outputBudget, charsPerToken);
  if (!fitted || outputBudget < 32) {
    throw new EngineError("llm_context_too_small", `An answer needs more than the ${outputBudget} output tokens available; use a larger context.`, false);
  }

  const stats: ReportStats = {
    chunks: 0,
    modelCalls: 0,
    retries: 0,
    merge: "none",
    prompt: "full",
    promptTokens: 0,
    outputTokens: 0,
    generationMs: 0,
    totalMs: 0,
    tokensPerSecond: 0,
    contextSize,
    outputBudget,
    transcriptBudget: 0,
    charsPerToken: Math.round(charsPerToken * 100) / 100,
    limits: fitted,
  };
  const limits: ReportLimits = fitted;

  const progress = new CallProgress(context);

  // The full instructions, or the compact ones when the full ones would take over a quarter of the context.
  const longestTask: PromptTask = { kind: "chunk", index: 999, count: 999, from: "99:59:59", to: "99:59:59" };
  const fullOverhead = runtime.countPromptTokens(buildPrompt(longestTask, "", language, limits));
  const compact = fullOverhead > contextSize * 0.25;
  const overhead = compact ? runtime.countPromptTokens(buildPrompt(longestTask, "", language, limits, true)) : fullOverhead;
  stats.prompt = compact ? "compact" : "full";
  const promptFor = (task: PromptTask, body: string) => (l: ReportLimits) => buildPrompt(task, body, language, l, compact);
  const fits = (prompt: Prompt) => runtime.countPromptTokens(prompt) + outputBudget + margin <= contextSize;

  const asking: AskSettings = { runtime, signal, outputBudget, temperature, retryTemperature: 0.4, seed, attempts, stats, progress, canceled };
  /** One model call under the grammar, tried again (cooler bounds, another seed) on an unusable answer. */
  const askReport = (build: (limits: ReportLimits) => Prompt): Promise<StructuredReport> =>
    ask(asking, {
      bound: limits,
      grammar: (bound) => runtime.grammarFor(bound),
      prompt: build,
      parse: (grammar, generation) => parseModelOutput(grammar, generation.text, generation.stopReason),
      // A cut-off answer gets smaller bounds next time; other failures another seed and some temperature.
      shrink: (bound) => limitsForOutputTokens(outputBudget * 0.6, charsPerToken) ?? bound,
    });

  let structured: StructuredReport;
  if (lines.length === 0) {
    // Nothing was said: nothing to report, and nothing to make up.
    structured = { title: "", summary: "", key_takeaways: [], action_items: [], decisions: [], minutes: [] };
  } else {
    // Room for transcript lines: the context less the longest instructions, the answer and a margin.
    const transcriptBudget = contextSize - outputBudget - overhead - margin;
    stats.transcriptBudget = transcriptBudget;
    if (transcriptBudget < 32) {
      throw new EngineError("llm_context_too_small", `A context of ${contextSize} tokens leaves no room for the transcript.`, false);
    }
    const whole = lines.map((line) => line.text).join("\n");
    const single = promptFor({ kind: "single" }, whole);
    if (runtime.countTokens(whole) <= transcriptBudget && fits(single(limits))) {
      stats.chunks = 1;
      structured = await askReport(single);
    } else {
      const parts = await reportParts(lines, transcriptBudget);
      stats.chunks = parts.length;
      structured = await mergeParts(parts);
    }
  }

  async function reportParts(all: TranscriptLine[], budget: number): Promise<Part[]> {
    const tasks = planParts(
      all,
      budget,
      withHours,
      runtime.countTokens.bind(runtime),
      (body, part) => promptFor({ kind: "chunk", ...part }, body),
      (prompt) => fits(prompt(limits)),
    );
    if (!tasks) {
      throw new EngineError("llm_context_too_small", `The transcript's parts do not fit in a context of ${contextSize} tokens.`, false);
    }
    progress.plan(tasks.length + 1);
    const parts: Part[] = [];
    for (const task of tasks) parts.push({ report: await askReport(task.prompt), from: task.from, to: task.to });
    return parts;
  }

  /** Merges the parts' reports with the model, in groups that fit when all do not, else by our own rules. */
  async function mergeParts(parts: Part[]): Promise<StructuredReport> {
    const mergePrompt = (group: Part[]) =>
      promptFor(
        { kind: "merge", count: group.length },
        group.map((part, index) => renderPartReport(part.report, { index: index + 1, from: part.from, to: part.to }, language)).join("\n\n"),
      );
    const { result, merge } = await reduceInGroups(parts, {
      fits: (group) => fits(mergePrompt(group)(limits)),
      merge: async (group) => ({ report: await askReport(mergePrompt(group)), from: group[0]!.from, to: group.at(-1)!.to }),
      fallback: (all) => ({ report: deterministicMerge(all.map((part) => part.report), limits), from: all[0]!.from, to: all.at(-1)!.to }),
      planned: (calls) => progress.addCalls(calls),
    });
    stats.merge = merge;
    return result.report;
  }

  const date = (options.now?.() ?? new Date()).toISOString().slice(0, 10);
  const aiTitle = clip(structured.title, DEFAULT_REPORT_LIMITS.title) || wordingFor(language).fallbackTitle(date);
  structured = { ...structured, title: aiTitle };
  const title = input.title?.trim() || aiTitle;
  stats.totalMs = performance.now() - started;
  stats.tokensPerSecond = stats.generationMs > 0 ? Math.round((stats.outputTokens / stats.generationMs) * 10_000) / 10 : 0;
  options.onStats?.(stats);
  context.progress(1);
  return {
    title,
    markdown: renderMarkdown(title, structured, language),
    structured,
    language,
    model: modelName,
    usage: { promptTokens: stats.promptTokens, completionTokens: stats.outputTokens },
  };
}

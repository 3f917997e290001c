/**
 * Document generation with the report's local LLM: the template's (or client's) task, the meeting's
 * report and, when asked, its transcript. A transcript that outgrows the context is cut into parts
 * as the report does (passes.ts); notes are taken from each part for this document's task, merged
 * in groups until they fit, and the document is written from the report and the notes.
 *
 * Every answer is one JSON string under a grammar whose maxLength fits the tokens reserved for it,
 * so a document is never cut off mid-way; an answer that still is (a model spending more tokens per
 * character than measured) is asked again with a smaller bound, and the step fails rather than keep
 * half a document.
 */
import { EngineError, type DocumentInput, type DocumentResult, type StepContext } from "../types.ts";
import { ask, CallProgress, type AskSettings } from "./ask.ts";
import { splitText } from "./chunking.ts";
import { buildDocumentPrompt, type DocumentTask } from "./document-prompt.ts";
import { clip } from "./parse.ts";
import { charsPerTokenOf, outputBudgetFor, planParts, reduceInGroups, transcriptLines } from "./passes.ts";
import type { Prompt } from "./prompt.ts";
import type { LlmRuntime } from "./runtime.ts";

export interface WriterOptions {
  maxOutputTokens?: number;
  temperature?: number;
  seed?: number;
  /** Tries per model call when the answer is unusable; defaults to 2. */
  attempts?: number;
  onStats?: (stats: WriterStats) => void;
}

export interface WriterStats {
  /** Transcript parts notes were taken from (0 when the material fit in one call). */
  parts: number;
  merge: "none" | "model" | "deterministic";
  modelCalls: number;
  retries: number;
  promptTokens: number;
  outputTokens: number;
  totalMs: number;
}

type Field = "markdown" | "notes";

/** The answer's JSON schema: one string of at most `maxChars` characters. */
export function documentAnswerSchema(field: Field, maxChars: number) {
  return {
    type: "object",
    properties: { [field]: { type: "string", maxLength: maxChars } },
    required: [field],
    additionalProperties: false,
  } as const;
}

const INVALID = "llm_invalid_output";

function invalid(reason: string): EngineError {
  return new EngineError(INVALID, `The language model's answer is not a usable document: ${reason}`, true);
}

function canceled(): EngineError {
  return new EngineError("canceled", "The document generation was canceled.", false);
}

/** The string field of a grammar-constrained answer, or a retryable error saying why it is unusable. */
export function parseDocumentAnswer(parse: (text: string) => unknown, field: Field, text: string, stopReason: string): string {
  if (stopReason === "maxTokens") throw invalid("it was cut off at the output token limit.");
  if (text.includes("\uFFFD") || !text.isWellFormed()) throw invalid("it holds invalid UTF-8.");
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw invalid(`it does not parse (${error instanceof Error ? error.message : String(error)}).`);
  }
  const content = (value as Record<string, unknown> | null)?.[field];
  if (typeof content !== "string") throw invalid(`it has no ${field} text.`);
  const cleaned = unfence(content).trim();
  if (!cleaned) throw invalid(`its ${field} is empty.`);
  return cleaned;
}

/** Models sometimes wrap the whole document in a ```markdown fence: the document is what is inside. */
function unfence(text: string): string {
  const match = /^\s*```(?:markdown|md)?\s*\n([\s\S]*?)\n```\s*$/i.exec(text);
  return match ? match[1]! : text;
}

/** The document's title: the one given, else the first heading the model wrote, else the meeting's. */
export function documentTitle(given: string | null, markdown: string, meetingTitle: string): string {
  if (given?.trim()) return given.trim();
  const heading = /^#{1,2}\s+(.+?)\s*#*\s*$/m.exec(markdown)?.[1]?.replace(/[*_`]/g, "").trim();
  return clip(heading || meetingTitle, 300);
}

/** The first pieces of `text` that fit in `maxTokens` tokens (cut at word boundaries). */
function fitTokens(text: string, maxTokens: number, countTokens: (text: string) => number): string {
  if (countTokens(text) <= maxTokens) return text;
  const pieces = splitText(text, Math.max(8, Math.floor(maxTokens / 8)), countTokens);
  let out = "";
  for (const piece of pieces) {
    const next = out ? `${out} ${piece}` : piece;
    if (countTokens(next) > maxTokens) break;
    out = next;
  }
  return `${out} […]`;
}

export async function writeDocument(
  runtime: LlmRuntime,
  modelName: string,
  options: WriterOptions,
  input: DocumentInput,
  context: StepContext,
): Promise<DocumentResult> {
  const { signal } = context;
  if (signal.aborted) throw canceled();
  const started = performance.now();
  const count = runtime.countTokens.bind(runtime);
  const contextSize = runtime.contextSize;
  const margin = Math.max(16, Math.ceil(contextSize * 0.02));
  const temperature = options.temperature ?? 0.3;
  const seed = options.seed ?? 42;
  const attempts = Math.max(1, options.attempts ?? 2);
  const { lines, withHours } = input.transcript ? transcriptLines(input.transcript) : { lines: [], withHours: false };
  const transcript = lines.map((line) => line.text).join("\n");

  const charsPerToken = charsPerTokenOf(`${input.report}\n${transcript}`, count);
  const outputBudget = outputBudgetFor(contextSize, 256, options.maxOutputTokens);
  // A grammar-valid answer's worst case must fit in its tokens: the JSON around it, then the text.
  const maxCharsFor = (tokens: number) => Math.max(0, Math.floor((tokens - 24) * charsPerToken * 0.9));
  const maxChars = maxCharsFor(outputBudget);
  if (outputBudget < 64 || maxChars < 100) {
    throw new EngineError("llm_context_too_small", `A document needs more than the ${outputBudget} output tokens available; use a larger context.`, false);
  }
  const stats: WriterStats = { parts: 0, merge: "none", modelCalls: 0, retries: 0, promptTokens: 0, outputTokens: 0, totalMs: 0 };
  const fits = (prompt: Prompt) => runtime.countPromptTokens(prompt) + outputBudget + margin <= contextSize;
  const prompt = (task: DocumentTask, report: string, body: string) => (chars: number) => buildDocumentPrompt(task, input, report, body, chars);

  const progress = new CallProgress(context);

  const asking: AskSettings = { runtime, signal, outputBudget, temperature, retryTemperature: 0.5, seed, attempts, stats, progress, canceled };
  /** One call under the grammar; asked again (another seed, or a smaller bound after a cut-off) when unusable. */
  const askText = (field: Field, build: (maxChars: number) => Prompt): Promise<string> =>
    ask(asking, {
      bound: maxChars,
      grammar: (chars) => runtime.jsonGrammar(documentAnswerSchema(field, chars)),
      prompt: build,
      parse: (grammar, generation) => parseDocumentAnswer((text) => grammar.parse(text), field, generation.text, generation.stopReason),
      shrink: (chars) => Math.max(100, Math.floor(chars * 0.6)),
    });

  // Room for the material in the final call: the context less the instructions, the answer and a margin.
  const room = contextSize - outputBudget - margin - runtime.countPromptTokens(prompt({ kind: "write", body: "notes" }, "", "")(maxChars));
  if (room < 64) {
    throw new EngineError("llm_context_too_small", `A context of ${contextSize} tokens leaves no room for the meeting's material.`, false);
  }
  // The report is bounded by its schema, but a small context may still not hold it with a transcript.
  const report = fitTokens(input.report, lines.length ? Math.floor(room / 2) : room, count);

  let markdown: string;
  const whole = prompt({ kind: "write", body: "transcript" }, report, transcript);
  if (!lines.length) {
    markdown = await askText("markdown", prompt({ kind: "write", body: "report" }, report, ""));
  } else if (fits(whole(maxChars))) {
    markdown = await askText("markdown", whole);
  } else {
    // Notes per part: each part's prompt holds the task and the part, not the report.
    const overhead = runtime.countPromptTokens(buildDocumentPrompt({ kind: "notes", index: 999, count: 999, from: "99:59:59", to: "99:59:59" }, input, "", "", maxChars));
    const partBudget = contextSize - outputBudget - margin - overhead;
    const parts =
      partBudget >= 32
        ? planParts(lines, partBudget, withHours, count, (body, part) => prompt({ kind: "notes", ...part }, "", body), (p) => fits(p(maxChars)))
        : null;
    if (!parts) throw new EngineError("llm_context_too_small", `The transcript's parts do not fit in a context of ${contextSize} tokens.`, false);
    stats.parts = parts.length;
    progress.plan(parts.length + 1);
    const notes: string[] = [];
    for (const part of parts) notes.push(`(${part.from}–${part.to})\n${await askText("notes", part.prompt)}`);
    const final = (body: string) => prompt({ kind: "write", body: "notes" }, report, body);
    let joined = notes.join("\n\n");
    if (!fits(final(joined)(maxChars))) {
      const mergePrompt = (group: string[]) => prompt({ kind: "merge_notes", count: group.length }, "", group.join("\n\n"));
      const reduced = await reduceInGroups(notes, {
        fits: (group) => fits(mergePrompt(group)(maxChars)),
        merge: (group) => askText("notes", mergePrompt(group)),
        // Every part keeps its fair share of the room.
        fallback: (all) => all.map((note) => clip(note, Math.floor((maxChars - 2 * all.length) / all.length))).join("\n\n"),
        planned: (calls) => progress.addCalls(calls),
      });
      stats.merge = reduced.merge;
      joined = fitTokens(reduced.result, room - count(report), count);
    }
    markdown = await askText("markdown", final(joined));
  }

  stats.totalMs = performance.now() - started;
  options.onStats?.(stats);
  context.progress(1);
  return {
    title: documentTitle(input.title, markdown, input.meeting.title),
    markdown,
    language: input.language,
    model: modelName,
    usage: { promptTokens: stats.promptTokens, completionTokens: stats.outputTokens },
  };
}

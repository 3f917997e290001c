/**
 * The names and postal addresses of a transcript, found by the local LLM for redaction (issue 23):
 * the text is cut into parts that fit the context, on line boundaries as the report cuts it, and
 * each part is asked for `{ entities: [{ kind, text }] }` under a JSON-schema grammar. An answer's
 * text is kept only when it occurs in its part, so a model that writes anything else (the random
 * development stand-in does) adds nothing; redaction checks again on its side.
 */
import type { EntityFinder } from "../../redaction/types.ts";
import { EngineError, type StepContext } from "../types.ts";
import { ask, CallProgress, type AskCounters } from "./ask.ts";
import { packChunks, splitText } from "./chunking.ts";
import { charsPerTokenOf } from "./passes.ts";
import type { Prompt } from "./prompt.ts";
import type { LlmRuntime } from "./runtime.ts";

type Kind = "person" | "address";

/** Characters of one entity's text in an answer: a long postal address fits. */
export const ENTITY_MAX_CHARS = 120;
/** Tokens reserved for one answer: a part's list of entities, not prose. */
const OUTPUT_TOKENS = 768;

export function entityAnswerSchema(kinds: readonly Kind[], maxItems: number) {
  return {
    type: "object",
    properties: {
      entities: {
        type: "array",
        maxItems,
        items: {
          type: "object",
          properties: { kind: { enum: [...kinds] }, text: { type: "string", maxLength: ENTITY_MAX_CHARS } },
          required: ["kind", "text"],
          additionalProperties: false,
        },
      },
    },
    required: ["entities"],
    additionalProperties: false,
  } as const;
}

const WHAT: Record<Kind, string> = {
  person: "person: the name of a person (first name, last name or both, without a title such as Mr or Dr)",
  address: "address: a postal address (number, street, town, postcode), as one item",
};

export function entityPrompt(kinds: readonly Kind[], part: string): Prompt {
  return {
    system:
      "You find personal data in a meeting transcript so that it can be removed. You answer with JSON only. " +
      "Copy each item exactly as it is written in the transcript, character for character; never invent, translate or complete one.",
    user: [
      "List every item of these kinds in the transcript below:",
      ...kinds.map((kind) => `- ${WHAT[kind]}`),
      "List each distinct item once. If there is none, answer with an empty list.",
      "",
      "Transcript:",
      part,
    ].join("\n"),
  };
}

function invalid(reason: string): EngineError {
  return new EngineError("llm_invalid_output", `The language model's list of names and addresses is not usable: ${reason}`, true);
}

/** The answer's items whose text occurs in the part (case aside), of a kind asked for, once each. */
export function parseEntityAnswer(value: unknown, part: string, kinds: readonly Kind[]): { kind: Kind; text: string }[] {
  const entities = (value as { entities?: unknown } | null)?.entities;
  if (!Array.isArray(entities)) throw invalid("it has no list of entities.");
  const haystack = part.toLowerCase();
  const seen = new Set<string>();
  const kept: { kind: Kind; text: string }[] = [];
  for (const entity of entities) {
    const { kind, text } = (entity ?? {}) as { kind?: unknown; text?: unknown };
    if (typeof text !== "string" || !kinds.includes(kind as Kind)) continue;
    const trimmed = text.trim();
    if (trimmed.length < 2 || !haystack.includes(trimmed.toLowerCase()) || seen.has(`${kind}:${trimmed}`)) continue;
    seen.add(`${kind}:${trimmed}`);
    kept.push({ kind: kind as Kind, text: trimmed });
  }
  return kept;
}

export interface FinderStats extends AskCounters {
  parts: number;
}

/** An EntityFinder over a runtime; `queue` runs it one generation at a time with the report and documents. */
export function entityFinderWithRuntime(
  runtime: LlmRuntime,
  options: { temperature?: number; seed?: number; attempts?: number; onStats?: (stats: FinderStats) => void },
  queue: <T>(task: () => Promise<T>) => Promise<T> = (task) => task(),
): EntityFinder {
  return {
    find: (text, kinds, signal) => queue(() => findEntities(runtime, options, text, kinds, signal ?? new AbortController().signal)),
  };
}

async function findEntities(
  runtime: LlmRuntime,
  options: { temperature?: number; seed?: number; attempts?: number; onStats?: (stats: FinderStats) => void },
  text: string,
  kinds: readonly Kind[],
  signal: AbortSignal,
): Promise<{ kind: Kind; text: string }[]> {
  const canceled = () => new EngineError("canceled", "The search for names and addresses was canceled.", false);
  if (signal.aborted) throw canceled();
  const wanted = [...new Set(kinds)].filter((kind): kind is Kind => kind === "person" || kind === "address");
  if (!wanted.length || !text.trim()) return [];
  const count = runtime.countTokens.bind(runtime);
  const contextSize = runtime.contextSize;
  const outputBudget = Math.min(OUTPUT_TOKENS, Math.floor(contextSize * 0.4));
  const margin = Math.max(16, Math.ceil(contextSize * 0.02));
  const room = contextSize - outputBudget - margin - runtime.countPromptTokens(entityPrompt(wanted, ""));
  if (room < 32) throw new EngineError("llm_context_too_small", `A context of ${contextSize} tokens leaves no room to look for names.`, false);
  // The grammar's worst case must fit in the answer's tokens: each item's JSON and its text.
  const charsPerToken = charsPerTokenOf(text, count);
  const maxItems = Math.max(1, Math.min(64, Math.floor((outputBudget - 16) / (ENTITY_MAX_CHARS / charsPerToken + 16))));

  // Parts on line boundaries, as even as the sizes allow (chunking.ts, as the report's parts).
  const lines = text.split("\n").flatMap((line) => splitText(line, room, count).map((piece) => ({ value: piece, tokens: count(piece) + 1 })));
  const parts = packChunks(lines, room).map((chunk) => chunk.join("\n"));
  const stats: FinderStats = { parts: parts.length, modelCalls: 0, retries: 0, promptTokens: 0, outputTokens: 0 };
  const context: StepContext = { signal, progress: () => {} };
  const progress = new CallProgress(context);
  progress.plan(parts.length);
  const found: { kind: Kind; text: string }[] = [];
  for (const part of parts) {
    const items = await ask(
      { runtime, signal, outputBudget, temperature: options.temperature ?? 0.1, retryTemperature: 0.3, seed: options.seed ?? 42, attempts: Math.max(1, options.attempts ?? 2), stats, progress, canceled },
      {
        bound: maxItems,
        grammar: (items) => runtime.jsonGrammar(entityAnswerSchema(wanted, items)),
        prompt: () => entityPrompt(wanted, part),
        parse: (grammar, generation) => {
          if (generation.stopReason === "maxTokens") throw invalid("it was cut off at the output token limit.");
          let value: unknown;
          try {
            value = grammar.parse(generation.text);
          } catch (error) {
            throw invalid(`it does not parse (${error instanceof Error ? error.message : String(error)}).`);
          }
          return parseEntityAnswer(value, part, wanted);
        },
        shrink: (items) => Math.max(1, Math.floor(items / 2)),
      },
    );
    found.push(...items);
  }
  options.onStats?.(stats);
  return found;
}

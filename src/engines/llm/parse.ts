/**
 * From the model's text to a clean StructuredReport. Output generated under the grammar can still
 * be unusable: cut off at the token limit, or holding invalid UTF-8 (a weak model emitting byte
 * tokens), which makes grammar.parse() throw. Those become a retryable EngineError, never a crash.
 */
import { EngineError, type StructuredReport } from "../types.ts";
import type { ReportGrammar } from "./runtime.ts";
import { REPORT_JSON_SCHEMA, validateReport } from "./schema.ts";

export const INVALID_OUTPUT = "llm_invalid_output";

function invalid(reason: string): EngineError {
  return new EngineError(INVALID_OUTPUT, `The language model's answer is not a usable report: ${reason}`, true);
}

/** One line, single spaces, trimmed. */
export function cleanText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

const NO_VALUE = new Set(["", "null", "none", "n/a", "na", "-", "—", "unknown", "aucun", "aucune", "inconnu", "personne", "tbd"]);

function cleanOptional(value: string | null): string | null {
  if (value === null) return null;
  const text = cleanText(value);
  return NO_VALUE.has(text.toLowerCase()) ? null : text;
}

function cleanList(items: string[]): string[] {
  return items.map(cleanText).filter((item) => item.length > 0);
}

/** Whitespace tidied, empty items dropped, "none"-like owners and dates made null. The title may come out empty. */
export function cleanReport(report: StructuredReport): StructuredReport {
  return {
    title: cleanText(report.title),
    summary: cleanText(report.summary),
    key_takeaways: cleanList(report.key_takeaways),
    action_items: report.action_items
      .map((item) => ({ text: cleanText(item.text), owner: cleanOptional(item.owner), due: cleanOptional(item.due) }))
      .filter((item) => item.text.length > 0),
    decisions: cleanList(report.decisions),
    minutes: cleanList(report.minutes),
  };
}

/**
 * Parses the model's answer with the grammar's own parse step, then checks it against the schema.
 * Throws EngineError("llm_invalid_output", …, retryable) for a cut-off answer, invalid UTF-8, a
 * parse failure or a schema violation.
 */
export function parseModelOutput(grammar: ReportGrammar, text: string, stopReason?: string): StructuredReport {
  if (stopReason === "maxTokens") throw invalid("it was cut off at the output token limit.");
  // The detokenizer turns invalid UTF-8 into U+FFFD; lone surrogates are just as broken.
  if (text.includes("\uFFFD") || !text.isWellFormed()) throw invalid("it holds invalid UTF-8.");
  let value: unknown;
  try {
    value = grammar.parse(text);
  } catch (error) {
    throw invalid(`it does not parse (${error instanceof Error ? error.message : String(error)}).`);
  }
  const errors = validateReport(value, REPORT_JSON_SCHEMA);
  if (errors.length) throw invalid(`it breaks the schema (${errors.slice(0, 3).join("; ")}).`);
  return cleanReport(value as StructuredReport);
}

/** Shortens to at most `max` characters, at a word boundary when one is near. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max).join("");
  const space = cut.lastIndexOf(" ");
  return (space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.–-]+$/u, "");
}

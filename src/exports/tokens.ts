/**
 * Export parts are measured in tokens of o200k_base, the encoding of OpenAI's GPT-4o and later
 * models (gpt-tokenizer, a maintained pure-JS port of tiktoken): a widely used family, and a fair
 * stand-in for other modern tokenizers. Named in every export so clients know what was counted.
 */
export const TOKENIZER = "o200k_base (gpt-tokenizer 4)";

type CountTokens = (text: string) => number;
let countTokens: CountTokens | undefined;

export function tokenCount(text: string): number {
  // Loaded at the first export, not when the process starts: building the encoding's tables took
  // about 0.4 s of CPU, paid by every server, worker and CLI start that never made an export.
  countTokens ??= (require("gpt-tokenizer/encoding/o200k_base") as { countTokens: CountTokens }).countTokens;
  return countTokens(text);
}

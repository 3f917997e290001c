import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

/**
 * Export parts are measured in tokens of o200k_base, the encoding of OpenAI's GPT-4o and later
 * models (gpt-tokenizer, a maintained pure-JS port of tiktoken): a widely used family, and a fair
 * stand-in for other modern tokenizers. Named in every export so clients know what was counted.
 */
export const TOKENIZER = "o200k_base (gpt-tokenizer 4)";

export function tokenCount(text: string): number {
  return countTokens(text);
}

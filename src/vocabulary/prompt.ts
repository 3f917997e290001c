/**
 * Whisper's initial prompt from a meeting's terms and its account's glossary (issue 23).
 *
 * whisper.cpp keeps at most n_text_ctx / 2 = 224 tokens of prompt, and drops the *first* ones
 * when there are more; so the prompt is bounded here, whole terms at a time, most specific first:
 * the meeting's own terms, then the account's (oldest first), each once (case-insensitive).
 *
 * Tokens are estimated without the model's vocabulary, on the safe side of whisper's byte-level
 * BPE (GPT-2's): a run of ASCII letters at most one token per 2 letters (English words average
 * about 4 letters a token, rare names such as "Kubernetes" about 2.5), each digit, each ASCII
 * punctuation or symbol one token, each byte of a non-ASCII character's UTF-8 one token (the
 * byte-level worst case), and a separator ", " one token. The budget left for terms is 200 of
 * the 224, room for the estimate being off on unusual spellings.
 */
export const PROMPT_TOKEN_BUDGET = 200;
const SEPARATOR = ", ";

/** A conservative count of the tokens whisper's tokenizer makes of `text`. */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const piece of text.matchAll(/[A-Za-z]+|[0-9]|\s+|[\x21-\x7e]|[^\x00-\x7f]/gu)) {
    const value = piece[0];
    if (/^[A-Za-z]/.test(value)) tokens += Math.ceil(value.length / 2);
    else if (/^\s/.test(value)) tokens += value.length > 1 ? value.length - 1 : 0; // one space joins the next word's token
    else if (value.charCodeAt(0) > 0x7f) tokens += new TextEncoder().encode(value).length;
    else tokens += 1;
  }
  return tokens;
}

/** The prompt for whisper, or null with no term at all. */
export function whisperPrompt(meetingTerms: readonly string[], accountTerms: readonly string[], budget = PROMPT_TOKEN_BUDGET): string | null {
  const seen = new Set<string>();
  const kept: string[] = [];
  let used = 0;
  for (const term of [...meetingTerms, ...accountTerms]) {
    const key = term.toLocaleLowerCase("und");
    if (seen.has(key)) continue;
    seen.add(key);
    const cost = estimateTokens(term) + (kept.length > 0 ? estimateTokens(SEPARATOR) : 0);
    // A term that does not fit is left out, and a shorter one after it may still fit.
    if (used + cost > budget) continue;
    kept.push(term);
    used += cost;
  }
  return kept.length > 0 ? kept.join(SEPARATOR) : null;
}

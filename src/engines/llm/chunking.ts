/** Splitting a transcript into parts that fit the context, on segment boundaries. */

export interface Sized<T> {
  value: T;
  tokens: number;
}

/**
 * Consecutive groups of at most `budget` tokens each, as even as the sizes allow: rather than
 * filling each group to the brim and leaving a small last one, it cuts near the points that divide
 * the total evenly, trying the fewest groups first. An item larger than the budget gets a group of
 * its own (split such items beforehand).
 */
export function packChunks<T>(items: readonly Sized<T>[], budget: number): T[][] {
  if (items.length === 0) return [];
  const total = items.reduce((sum, item) => sum + item.tokens, 0);
  for (let count = Math.max(1, Math.ceil(total / budget)); count <= items.length; count++) {
    const chunks: T[][] = [];
    let current: T[] = [];
    let size = 0;
    let consumed = 0;
    for (const item of items) {
      const boundary = ((chunks.length + 1) * total) / count;
      if (current.length > 0 && (size + item.tokens > budget || consumed + item.tokens / 2 > boundary)) {
        chunks.push(current);
        current = [];
        size = 0;
      }
      current.push(item.value);
      size += item.tokens;
      consumed += item.tokens;
    }
    chunks.push(current);
    if (chunks.length <= count) return chunks;
  }
  return items.map((item) => [item.value]);
}

/**
 * Splits a text into pieces of at most `maxTokens` tokens (as `countTokens` measures them), at word
 * boundaries when it can, inside a word when a single word is too long.
 */
export function splitText(text: string, maxTokens: number, countTokens: (text: string) => number): string[] {
  if (countTokens(text) <= maxTokens) return [text];
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= 1) {
    const chars = [...text];
    const half = Math.ceil(chars.length / 2);
    if (chars.length < 2) return [text];
    return [...splitText(chars.slice(0, half).join(""), maxTokens, countTokens), ...splitText(chars.slice(half).join(""), maxTokens, countTokens)];
  }
  const half = Math.ceil(words.length / 2);
  return [
    ...splitText(words.slice(0, half).join(" "), maxTokens, countTokens),
    ...splitText(words.slice(half).join(" "), maxTokens, countTokens),
  ];
}

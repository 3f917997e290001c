import { describe, expect, test } from "bun:test";
import { packChunks, splitText } from "./chunking.ts";
import { deterministicMerge, pickFairly } from "./merge.ts";
import { DEFAULT_REPORT_LIMITS, MIN_REPORT_LIMITS, validateReport } from "./schema.ts";
import type { StructuredReport } from "../types.ts";

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe("packChunks", () => {
  test("keeps order, respects the budget and balances the parts", () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ value: i, tokens: 10 }));
    const chunks = packChunks(items, 35);
    expect(chunks.flat()).toEqual([...Array(10).keys()]);
    expect(chunks.length).toBe(4); // 3 would need 34 tokens each, and items come in tens
    for (const chunk of chunks) expect(chunk.length * 10).toBeLessThanOrEqual(35);
    expect(Math.max(...chunks.map((c) => c.length)) - Math.min(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1);
  });

  test("uneven items: no part over the budget, no tiny last part", () => {
    const sizes = [5, 30, 8, 12, 25, 3, 9, 17, 22, 6, 14, 11];
    const chunks = packChunks(sizes.map((tokens, i) => ({ value: i, tokens })), 60);
    expect(chunks.flat()).toEqual([...sizes.keys()]);
    const totals = chunks.map((chunk) => chunk.reduce((sum, i) => sum + sizes[i]!, 0));
    for (const total of totals) expect(total).toBeLessThanOrEqual(60);
    expect(chunks.length).toBe(3); // 162 tokens
    expect(Math.min(...totals)).toBeGreaterThan(35);
  });

  test("one part when everything fits; none for nothing", () => {
    expect(packChunks([{ value: "a", tokens: 5 }, { value: "b", tokens: 5 }], 100)).toEqual([["a", "b"]]);
    expect(packChunks([], 100)).toEqual([]);
  });

  test("splitText cuts long text at word boundaries within the budget", () => {
    const text = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");
    const pieces = splitText(text, 8, words);
    expect(pieces.join(" ")).toBe(text);
    for (const piece of pieces) expect(words(piece)).toBeLessThanOrEqual(8);
    expect(splitText("short text", 8, words)).toEqual(["short text"]);
    const chars = splitText("x".repeat(40), 10, (t) => Math.ceil(t.length / 4));
    expect(chars.join("")).toBe("x".repeat(40));
    for (const piece of chars) expect(Math.ceil(piece.length / 4)).toBeLessThanOrEqual(10);
  });
});

describe("deterministic merge", () => {
  const part = (n: number): StructuredReport => ({
    title: n === 0 ? "" : `Part ${n} title`,
    summary: `Summary of part ${n}. `.repeat(30),
    key_takeaways: [`takeaway ${n}a`, `takeaway ${n}b`, "shared point"],
    action_items: [{ text: `task ${n}`, owner: n % 2 ? "Anna" : null, due: null }],
    decisions: [`decision ${n}`],
    minutes: Array.from({ length: 6 }, (_, i) => `part ${n} minute ${i}`),
  });

  test("pickFairly takes round-robin, skips duplicates, keeps the original order", () => {
    expect(pickFairly([["a1", "a2", "a3"], ["b1"], ["c1", "c2"]], 4, (s) => s)).toEqual(["a1", "a2", "b1", "c1"]);
    expect(pickFairly([["x", "y"], ["X", "z"]], 10, (s) => s)).toEqual(["x", "y", "z"]);
  });

  test("every part is represented, in order, and the result fits the schema", () => {
    const parts = [0, 1, 2, 3].map(part);
    const merged = deterministicMerge(parts, DEFAULT_REPORT_LIMITS);
    expect(validateReport(merged)).toEqual([]);
    expect(merged.title).toBe("Part 1 title");
    expect(merged.action_items.map((a) => a.text)).toEqual(["task 0", "task 1", "task 2", "task 3"]);
    const roomy = deterministicMerge(parts, { ...DEFAULT_REPORT_LIMITS, keyTakeaways: 20 });
    expect(roomy.key_takeaways.filter((t) => t === "shared point").length).toBe(1);
    expect(roomy.key_takeaways.length).toBe(9);
    for (const n of [0, 1, 2, 3]) {
      expect(merged.minutes.some((m) => m.startsWith(`part ${n} `))).toBe(true);
      expect(merged.summary).toContain(`Summary of part ${n}.`);
    }
    const order = merged.minutes.map((m) => Number(m.split(" ")[1]));
    expect(order).toEqual([...order].sort());
    const small = deterministicMerge(parts, MIN_REPORT_LIMITS);
    expect(small.minutes.length).toBe(MIN_REPORT_LIMITS.minutes);
    expect([...small.summary].length).toBeLessThanOrEqual(MIN_REPORT_LIMITS.summary);
  });
});

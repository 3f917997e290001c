// Whisper's prompt from the vocabulary: the meeting's terms first, the account's after, each once,
// whole terms within a conservative token estimate of whisper's budget.
import { expect, test } from "bun:test";
import { estimateTokens, PROMPT_TOKEN_BUDGET, whisperPrompt } from "./prompt.ts";

test("the meeting's terms come first, then the account's, without case duplicates", () => {
  expect(whisperPrompt(["Acme", "Dr. Nguyen"], ["Kubernetes", "acme"])).toBe("Acme, Dr. Nguyen, Kubernetes");
  expect(whisperPrompt([], [])).toBeNull();
});

test("the estimate is on the safe side: letters two to a token, other bytes one each", () => {
  expect(estimateTokens("Kubernetes")).toBe(5); // whisper's tokenizer makes 3 or 4 of it
  expect(estimateTokens("2024")).toBe(4);
  expect(estimateTokens("Œuvre")).toBe(2 + 2); // Œ is 2 bytes of UTF-8, "uvre" 2 tokens
  expect(estimateTokens("a, b")).toBe(3);
  expect(estimateTokens("東京")).toBe(6);
});

test("the prompt stays within the budget, whole terms only, the most specific kept", () => {
  const account = Array.from({ length: 500 }, (_, i) => `Glossaryterm${String(i).padStart(3, "0")}`);
  const prompt = whisperPrompt(["Meeting Term"], account)!;
  expect(prompt.startsWith("Meeting Term, Glossaryterm000, ")).toBe(true);
  expect(estimateTokens(prompt)).toBeLessThanOrEqual(PROMPT_TOKEN_BUDGET);
  // Every piece is a whole term: cut between terms, never inside one.
  for (const piece of prompt.split(", ").slice(1)) expect(account).toContain(piece);
  expect(prompt.split(", ").length).toBeLessThan(501);
});

test("a term too long for what is left is skipped, and a shorter one after it still fits", () => {
  const long = "x".repeat(100); // 50 tokens
  expect(whisperPrompt([long, "Acme"], [], 52)).toBe(`${long}`);
  expect(whisperPrompt(["Acme", long, "Zed"], [], 10)).toBe("Acme, Zed");
});

// The glossary's replacement: whole words, any case, the term as written, multi-word variants
// across spaces only, the longest variant first, the older term on a shared variant, and timed
// words merged so that their times still say when the words were said.
import { expect, test } from "bun:test";
import { buildMatcher, replaceInWords, replaceVariants } from "./replace.ts";

const glossary = buildMatcher([
  { term: "Kubernetes", variants: ["cooper netties", "Kube Ernie"] },
  { term: "Dr. Nguyen", variants: ["doctor win"] },
  { term: "Acme", variants: ["ack me", "acne"] },
  { term: "Ackme Holdings", variants: ["ack me holdings", "acne"] },
  { term: "Œuvre", variants: ["euvre"] },
]);

test("a variant becomes its term, whatever its case, with the text around it kept", () => {
  expect(replaceVariants("We moved to Cooper Netties, finally.", glossary)).toEqual({ text: "We moved to Kubernetes, finally.", replaced: 1 });
  expect(replaceVariants("KUBE ERNIE and cooper   netties", glossary)).toEqual({ text: "Kubernetes and Kubernetes", replaced: 2 });
  expect(replaceVariants("ask doctor win.", glossary).text).toBe("ask Dr. Nguyen.");
});

test("whole words only: a variant inside a longer word, or split by punctuation, stays", () => {
  expect(replaceVariants("the cooper nettiesque plan", glossary)).toEqual({ text: "the cooper nettiesque plan", replaced: 0 });
  expect(replaceVariants("acnes", glossary).replaced).toBe(0);
  expect(replaceVariants("a cooper. Netties said", glossary).replaced).toBe(0);
  expect(replaceVariants("cooper-netties", glossary).replaced).toBe(0);
});

test("the longest variant wins at a word, and a variant two terms claim goes to the older one", () => {
  expect(replaceVariants("ack me holdings signed", glossary).text).toBe("Ackme Holdings signed");
  expect(replaceVariants("ack me signed", glossary).text).toBe("Acme signed");
  expect(replaceVariants("acne", glossary).text).toBe("Acme");
});

test("letters beyond ASCII compare without case; an empty glossary changes nothing", () => {
  expect(replaceVariants("une EUVRE d'art", glossary).text).toBe("une Œuvre d'art");
  expect(replaceVariants("cooper netties", buildMatcher([]))).toEqual({ text: "cooper netties", replaced: 0 });
});

test("a variant spelled as its term is no variant (a word is not replaced by itself)", () => {
  const matcher = buildMatcher([{ term: "Acme", variants: ["ACME"] }]);
  expect(matcher.size).toBe(0);
  expect(replaceVariants("acme", matcher).replaced).toBe(0);
});

test("timed words a variant spans become one word from the first one's start to the last one's end", () => {
  const words = [
    { start: 0, end: 0.4, text: " we" },
    { start: 0.4, end: 0.9, text: " cooper" },
    { start: 0.9, end: 1.5, text: " netties," },
    { start: 1.6, end: 2, text: " acne" },
    { start: 2, end: 2.3, text: " now" },
  ];
  expect(replaceInWords(words, glossary)).toEqual([
    { start: 0, end: 0.4, text: " we" },
    { start: 0.4, end: 1.5, text: " Kubernetes," },
    { start: 1.6, end: 2, text: " Acme" },
    { start: 2, end: 2.3, text: " now" },
  ]);
  // Every word still starts where the one before ended or later: the timings stay in order.
  const merged = replaceInWords(words, glossary);
  for (let i = 1; i < merged.length; i++) expect(merged[i]!.start).toBeGreaterThanOrEqual(merged[i - 1]!.end);
});

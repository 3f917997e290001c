/** The document logic over a scripted runtime: one pass, notes per part and their merge, retries, titles, failures. */
import { describe, expect, test } from "bun:test";
import { fakeRuntime } from "../../../test/support/fake-llm.ts";
import { engineError } from "../../../test/support/engines.ts";
import type { DocumentInput } from "../types.ts";
import { documentTitle, parseDocumentAnswer, writeDocument, type WriterStats } from "./writer.ts";

function transcript(lines: number): NonNullable<DocumentInput["transcript"]> {
  return Array.from({ length: lines }, (_, i) => ({
    start: i * 10,
    end: i * 10 + 9,
    speaker: i % 2 ? "Élodie" : "SPEAKER_01",
    text: `Line ${i}: the budget for item ${i} is ${i * 100} euros, agreed for next week.`,
  }));
}

const input = (over: Partial<DocumentInput> = {}): DocumentInput => ({
  task: "Write the minutes of the meeting.",
  instructions: null,
  title: null,
  language: "en",
  meeting: { title: "Weekly sync", date: "2026-11-20T09:00:00Z", participants: ["Élodie", "Marc"] },
  report: "# Weekly sync\n\n## Summary\n\nThe team planned the week.",
  transcript: null,
  ...over,
});

const context = (signal = new AbortController().signal) => {
  const progress: number[] = [];
  return { ctx: { signal, progress: (f: number) => progress.push(f) }, progress };
};

describe("writeDocument (scripted runtime)", () => {
  test("report only: one call holding the task, instructions, meeting details and report; the Markdown as answered", async () => {
    const fake = fakeRuntime(4096, () => JSON.stringify({ markdown: "# Minutes\n\n- The team planned the week." }));
    const { ctx, progress } = context();
    const result = await writeDocument(fake.runtime, "test-model", {}, input({ instructions: "Formal tone." }), ctx);
    expect(result).toMatchObject({ title: "Minutes", markdown: "# Minutes\n\n- The team planned the week.", language: "en", model: "test-model" });
    // What the call consumed, for metering: the prompt's tokens and the answer's.
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(fake.calls).toHaveLength(1);
    const user = fake.calls[0]!.user;
    for (const part of ["Write the minutes of the meeting.", "Formal tone.", "Meeting: Weekly sync", "Participants: Élodie, Marc", "The team planned the week."]) {
      expect(user).toContain(part);
    }
    expect(user).not.toContain("Transcript:");
    expect(progress.at(-1)).toBe(1);
  });

  test("French meetings get French prompts; the given title wins over the model's heading", async () => {
    const fake = fakeRuntime(4096, () => JSON.stringify({ markdown: "# Compte rendu\n\nTexte." }));
    const result = await writeDocument(fake.runtime, "m", {}, input({ language: "fr", title: "Note client" }), context().ctx);
    expect(result.title).toBe("Note client");
    expect(fake.calls[0]!.user).toContain("Rédige le document décrit ci-dessous");
    expect(fake.calls[0]!.system).toContain("Rédige en français");
  });

  test("a transcript that fits goes in whole, with [mm:ss] speaker lines", async () => {
    const fake = fakeRuntime(8192, () => JSON.stringify({ markdown: "Body." }));
    const result = await writeDocument(fake.runtime, "m", {}, input({ transcript: transcript(5) }), context().ctx);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.user).toContain("[00:10] Élodie: Line 1: the budget");
    expect(result.title).toBe("Weekly sync"); // no heading in the answer: the meeting's title
  });

  test("a long transcript: notes from each part (every line in exactly one part), merged when they do not fit, then the document", async () => {
    let stats: WriterStats | undefined;
    const fake = fakeRuntime(2048, (prompt, _call, options) => {
      // Notes as long as the grammar allows, so that all of them cannot fit in the final prompt.
      const max = Number(/at most (\d+) characters/.exec(prompt.user)![1]);
      if (prompt.user.includes("JSON field notes")) return JSON.stringify({ notes: "n".repeat(Math.min(max, options.maxTokens * 3)) });
      return JSON.stringify({ markdown: "# Final\n\nDone." });
    });
    const lines = transcript(300);
    const result = await writeDocument(fake.runtime, "m", { onStats: (s) => (stats = s) }, input({ transcript: lines }), context().ctx);
    expect(result.markdown).toBe("# Final\n\nDone.");
    const noteCalls = fake.calls.filter((c) => c.user.includes("Take notes"));
    expect(noteCalls.length).toBeGreaterThan(1);
    expect(stats!.parts).toBe(noteCalls.length);
    for (const [i, line] of lines.entries()) {
      const marker = `Line ${i}: `;
      expect(noteCalls.filter((c) => c.user.includes(marker)).length).toBe(1);
    }
    expect(stats!.merge).not.toBe("none");
    expect(fake.calls.at(-1)!.user).toContain("Notes taken from the transcript");
  });

  test("a cut-off answer is asked again with a smaller bound; a second cut-off fails the step, never a half document", async () => {
    const bounds: number[] = [];
    const cutOnce = fakeRuntime(4096, (prompt, call) => {
      bounds.push(Number(/at most (\d+) characters/.exec(prompt.user)![1]));
      return call === 0 ? { text: '{"markdown": "# Half', stopReason: "maxTokens" } : JSON.stringify({ markdown: "# Whole\n\nText." });
    });
    const result = await writeDocument(cutOnce.runtime, "m", {}, input(), context().ctx);
    expect(result.markdown).toBe("# Whole\n\nText.");
    expect(bounds[1]!).toBeLessThan(bounds[0]!);

    const cutAlways = fakeRuntime(4096, () => ({ text: '{"markdown": "# Half', stopReason: "maxTokens" }));
    const error = await engineError(writeDocument(cutAlways.runtime, "m", {}, input(), context().ctx));
    expect(error).toMatchObject({ code: "llm_invalid_output", retryable: true });
  });

  test("an empty or unparsable answer is retried, then fails with llm_invalid_output", async () => {
    const fake = fakeRuntime(4096, (_p, call) => (call === 0 ? JSON.stringify({ markdown: "   " }) : "not json"));
    const error = await engineError(writeDocument(fake.runtime, "m", { attempts: 2 }, input(), context().ctx));
    expect(error.code).toBe("llm_invalid_output");
    expect(fake.calls).toHaveLength(2);
  });

  test("a context too small for any document fails with llm_context_too_small, without a model call", async () => {
    const fake = fakeRuntime(256, () => JSON.stringify({ markdown: "x" }));
    const error = await engineError(writeDocument(fake.runtime, "m", {}, input(), context().ctx));
    expect(error).toMatchObject({ code: "llm_context_too_small", retryable: false });
    expect(fake.calls).toHaveLength(0);
  });

  test("an aborted signal stops with canceled", async () => {
    const controller = new AbortController();
    controller.abort();
    const fake = fakeRuntime(4096, () => JSON.stringify({ markdown: "x" }));
    const error = await engineError(writeDocument(fake.runtime, "m", {}, input(), context(controller.signal).ctx));
    expect(error.code).toBe("canceled");
  });
});

describe("answers and titles", () => {
  test("a fenced document is unwrapped; invalid UTF-8 is refused", () => {
    const parse = (t: string) => JSON.parse(t) as unknown;
    expect(parseDocumentAnswer(parse, "markdown", JSON.stringify({ markdown: "```markdown\n# T\n\nBody\n```" }), "eogToken")).toBe("# T\n\nBody");
    expect(() => parseDocumentAnswer(parse, "markdown", JSON.stringify({ markdown: "bad \uFFFD" }), "eogToken")).toThrow("invalid UTF-8");
    expect(() => parseDocumentAnswer(parse, "markdown", JSON.stringify({ notes: "x" }), "eogToken")).toThrow("no markdown");
  });

  test("the title: given, else the first heading without its emphasis, else the meeting's", () => {
    expect(documentTitle(" Given ", "# Heading", "Meeting")).toBe("Given");
    expect(documentTitle(null, "Intro\n\n## **Client memo** ##\n\ntext", "Meeting")).toBe("Client memo");
    expect(documentTitle(null, "No heading here", "Meeting")).toBe("Meeting");
  });
});

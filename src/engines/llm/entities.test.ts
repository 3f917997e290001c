/** The LLM entity finder over a scripted runtime: parts that fit, the grammar's shape, answers checked against the text. */
import { describe, expect, test } from "bun:test";
import { fakeRuntime } from "../../../test/support/fake-llm.ts";
import { entityAnswerSchema, entityFinderWithRuntime, parseEntityAnswer, type FinderStats } from "./entities.ts";
import { createReporterWithRuntime } from "./reporter.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `[00:${String(i % 60).padStart(2, "0")}] SPEAKER_0${i % 2}: Line ${i}, Anna Berg spoke to the team about item ${i}.`).join("\n");

describe("entity finder (scripted runtime)", () => {
  test("one call for a short text; only items that occur in it, of the kinds asked, once", async () => {
    const fake = fakeRuntime(4096, () =>
      JSON.stringify({
        entities: [
          { kind: "person", text: "Anna Berg" },
          { kind: "person", text: "anna berg" },
          { kind: "person", text: "Anna Berg" },
          { kind: "person", text: "Zelda Moon" },
          { kind: "address", text: "Line 1" },
          { kind: "person", text: " " },
        ],
      }),
    );
    const finder = entityFinderWithRuntime(fake.runtime, {});
    const found = await finder.find(lines(3), ["person"]);
    expect(found).toEqual([
      { kind: "person", text: "Anna Berg" },
      { kind: "person", text: "anna berg" },
    ]);
    expect(fake.calls.length).toBe(1);
    expect(fake.calls[0]!.user).toContain("- person: the name of a person");
    expect(fake.calls[0]!.user).not.toContain("- address:");
    expect(fake.calls[0]!.user).toContain("SPEAKER_01: Line 1, Anna Berg");
  });

  test("a long text is asked about in parts that each fit the context, on line boundaries, every line once", async () => {
    const text = lines(200);
    const fake = fakeRuntime(2048, () => JSON.stringify({ entities: [] }));
    let stats: FinderStats | undefined;
    const finder = entityFinderWithRuntime(fake.runtime, { onStats: (s) => (stats = s) });
    expect(await finder.find(text, ["person", "address"])).toEqual([]);
    expect(fake.calls.length).toBeGreaterThan(1);
    expect(stats).toMatchObject({ parts: fake.calls.length, modelCalls: fake.calls.length, retries: 0 });
    const seen = fake.calls.flatMap((call) => call.user.split("Transcript:\n")[1]!.split("\n"));
    expect(seen).toEqual(text.split("\n"));
  });

  test("an answer cut off is asked again, then the step fails with a retryable error", async () => {
    const fake = fakeRuntime(4096, () => ({ text: '{"entities":[{"kind":"person","text":"An', stopReason: "maxTokens" }));
    const finder = entityFinderWithRuntime(fake.runtime, { attempts: 2 });
    await expect(finder.find("Anna Berg", ["person"])).rejects.toMatchObject({ code: "llm_invalid_output", retryable: true });
    expect(fake.calls.length).toBe(2);
  });

  test("nothing to look for, or nothing to look in: no call", async () => {
    const fake = fakeRuntime(4096, () => JSON.stringify({ entities: [] }));
    const finder = entityFinderWithRuntime(fake.runtime, {});
    expect(await finder.find("   ", ["person"])).toEqual([]);
    expect(await finder.find("Anna", [])).toEqual([]);
    expect(fake.calls.length).toBe(0);
  });

  test("a canceled search throws canceled", async () => {
    const controller = new AbortController();
    controller.abort();
    const fake = fakeRuntime(4096, () => JSON.stringify({ entities: [] }));
    await expect(entityFinderWithRuntime(fake.runtime, {}).find("Anna", ["person"], controller.signal)).rejects.toMatchObject({ code: "canceled" });
  });

  test("the reporter offers the finder on its own model and queue: never two generations at once", async () => {
    const fake = fakeRuntime(4096, () => JSON.stringify({ entities: [{ kind: "person", text: "Anna Berg" }] }));
    const reporter = createReporterWithRuntime(fake.runtime, "m", {});
    const results = await Promise.all([reporter.find("Anna Berg", ["person"]), reporter.find("met Anna Berg", ["person"])]);
    expect(results).toEqual([[{ kind: "person", text: "Anna Berg" }], [{ kind: "person", text: "Anna Berg" }]]);
    expect(fake.overlapped()).toBe(false);
    await reporter.close();
    await expect(reporter.find("Anna", ["person"])).rejects.toMatchObject({ code: "engine_closed" });
  });

  test("the grammar's schema: a bounded list of the kinds asked for", () => {
    expect(entityAnswerSchema(["person"], 7)).toMatchObject({ properties: { entities: { maxItems: 7, items: { properties: { kind: { enum: ["person"] }, text: { maxLength: 120 } } } } } });
    expect(() => parseEntityAnswer({ other: [] }, "x", ["person"])).toThrow(/no list of entities/);
  });
});

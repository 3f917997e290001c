import { describe, expect, test } from "bun:test";
import { EngineError } from "../types.ts";
import { INVALID_OUTPUT, clip, parseModelOutput } from "./parse.ts";

const good = {
  title: "  Budget\nreview ",
  summary: "The team reviewed the budget.",
  key_takeaways: ["On track.", "   "],
  action_items: [
    { text: "Send the forecast.", owner: " Anna ", due: "Friday" },
    { text: "Book the room.", owner: "none", due: "" },
    { text: "  ", owner: null, due: null },
  ],
  decisions: [],
  minutes: ["Anna presented."],
};
const json = JSON.stringify(good);
const jsonGrammar = { parse: (text: string) => JSON.parse(text) as unknown };

function expectInvalid(run: () => unknown, fragment: string) {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(EngineError);
  const error = caught as EngineError;
  expect(error.code).toBe(INVALID_OUTPUT);
  expect(error.code).toBe("llm_invalid_output");
  expect(error.retryable).toBe(true);
  expect(error.message).toContain(fragment);
}

describe("parseModelOutput", () => {
  test("parses with the grammar's parse step and tidies the report", () => {
    expect(parseModelOutput(jsonGrammar, json, "eogToken")).toEqual({
      title: "Budget review",
      summary: "The team reviewed the budget.",
      key_takeaways: ["On track."],
      action_items: [
        { text: "Send the forecast.", owner: "Anna", due: "Friday" },
        { text: "Book the room.", owner: null, due: null },
      ],
      decisions: [],
      minutes: ["Anna presented."],
    });
  });

  test("a throwing grammar.parse (the invalid-UTF-8 length error) becomes a retryable llm_invalid_output", () => {
    const throwingGrammar = {
      parse: () => {
        throw new Error("Expected at most 40 characters but got 47");
      },
    };
    expectInvalid(() => parseModelOutput(throwingGrammar, json, "stopGenerationTrigger"), "Expected at most 40 characters but got 47");
  });

  test("a non-Error thrown by parse is mapped too", () => {
    const throwingGrammar = {
      parse: () => {
        throw "boom";
      },
    };
    expectInvalid(() => parseModelOutput(throwingGrammar, json), "boom");
  });

  test("invalid UTF-8 (replacement characters, lone surrogates) is refused before parsing", () => {
    let parsed = false;
    const spy = {
      parse: (text: string) => {
        parsed = true;
        return JSON.parse(text) as unknown;
      },
    };
    expectInvalid(() => parseModelOutput(spy, json.replace("Budget", "Bud\uFFFDget")), "invalid UTF-8");
    expectInvalid(() => parseModelOutput(spy, json.replace("Budget", "Bud\uD800get")), "invalid UTF-8");
    expect(parsed).toBe(false);
  });

  test("an answer cut off at the token limit is refused", () => {
    expectInvalid(() => parseModelOutput(jsonGrammar, json.slice(0, 40), "maxTokens"), "cut off");
  });

  test("a parsed value that breaks the schema is refused", () => {
    expectInvalid(() => parseModelOutput(jsonGrammar, JSON.stringify({ ...good, minutes: "not a list" })), "breaks the schema");
    expectInvalid(() => parseModelOutput(jsonGrammar, "{}"), "missing");
  });
});

describe("clip", () => {
  test("keeps short text, cuts long text at a word boundary", () => {
    expect(clip("short", 10)).toBe("short");
    expect(clip("the quick brown fox jumps", 18)).toBe("the quick brown");
    expect([...clip("x".repeat(50), 20)].length).toBe(20);
  });
});

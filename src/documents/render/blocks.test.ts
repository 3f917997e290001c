import { describe, expect, test } from "bun:test";
import { markdownBlocks, plainText, type Block, type Run } from "./blocks.ts";

/** The runs of a heading or paragraph block. */
function runsOf(block: Block | undefined): Run[] {
  if (block?.kind !== "paragraph" && block?.kind !== "heading") throw new Error(`not a paragraph: ${block?.kind}`);
  return block.runs;
}

describe("markdownBlocks", () => {
  test("headings, paragraphs with bold and italic runs, entities decoded, soft breaks as spaces", () => {
    const blocks = markdownBlocks("# Titre *accentué*\n\nUn **gras _et italique_** &amp; `code <x>`\nsuite &#233;té");
    expect(blocks[0]).toEqual({ kind: "heading", level: 1, runs: [{ text: "Titre " }, { text: "accentué", italic: true }] });
    expect(blocks[1]).toEqual({
      kind: "paragraph",
      runs: [
        { text: "Un " },
        { text: "gras ", bold: true },
        { text: "et italique", bold: true, italic: true },
        { text: " & " },
        { text: "code <x>", code: true },
        { text: " suite été" },
      ],
    });
  });

  test("nested lists, ordered starts and task items", () => {
    const [list] = markdownBlocks("3. trois\n4. quatre\n   - sous\n   - [x] fait\n   - [ ] à faire\n");
    expect(list).toMatchObject({ kind: "list", ordered: true, start: 3 });
    if (list?.kind !== "list") throw new Error("not a list");
    expect(list.items.map((item) => plainText(runsOf(item.blocks[0])))).toEqual(["trois", "quatre"]);
    const nested = list.items[1]!.blocks[1];
    if (nested?.kind !== "list") throw new Error("no nested list");
    expect(nested.ordered).toBe(false);
    expect(nested.items.map((item) => item.checked)).toEqual([null, true, false]);
    expect(nested.items.map((item) => plainText(runsOf(item.blocks[0])))).toEqual(["sous", "fait", "à faire"]);
  });

  test("tables with alignment and styled cells; quotes, code, rules", () => {
    const blocks = markdownBlocks("| A | B |\n|:--|--:|\n| **x** | y &lt; z |\n\n> cité\n\n```ts\nconst a = 1;\n```\n\n---\n");
    expect(blocks[0]).toEqual({
      kind: "table",
      header: [[{ text: "A" }], [{ text: "B" }]],
      rows: [[[{ text: "x", bold: true }], [{ text: "y < z" }]]],
      align: ["left", "right"],
    });
    expect(blocks[1]).toEqual({ kind: "quote", blocks: [{ kind: "paragraph", runs: [{ text: "cité" }] }] });
    expect(blocks[2]).toEqual({ kind: "code", text: "const a = 1;" });
    expect(blocks[3]).toEqual({ kind: "rule" });
  });

  test("raw HTML is kept as literal text, never interpreted", () => {
    const blocks = markdownBlocks('<script>alert("x")</script>\n\nA <b onclick="x">bold</b> word');
    expect(plainText(runsOf(blocks[0]))).toBe('<script>alert("x")</script>');
    expect(plainText(runsOf(blocks[1]))).toBe('A <b onclick="x">bold</b> word');
  });
});

import { describe, expect, test } from "bun:test";
import { markdownBlocks, plainText, taskBox, type Block, type Run } from "./blocks.ts";

/** A run with the given style, the rest plain. */
function run(text: string, style: Partial<Omit<Run, "text">> = {}): Run {
  return { text, bold: false, italic: false, code: false, strike: false, ...style };
}

/** The runs of a heading or paragraph block. */
function runsOf(block: Block | undefined): Run[] {
  if (block?.kind !== "paragraph" && block?.kind !== "heading") throw new Error(`not a paragraph: ${block?.kind}`);
  return block.runs;
}

describe("markdownBlocks", () => {
  test("headings keep their level, 1 to 6", () => {
    const blocks = markdownBlocks("# Un\n\n## Deux\n\n###### Six\n\nSetext\n---\n");
    expect(blocks.map((block) => (block.kind === "heading" ? [block.level, plainText(block.runs)] : block.kind))).toEqual([
      [1, "Un"],
      [2, "Deux"],
      [6, "Six"],
      [2, "Setext"],
    ]);
  });

  test("bold, italic and code runs, styles nested; soft breaks as spaces, hard breaks kept", () => {
    const blocks = markdownBlocks("# Titre *accentué*\n\nUn **gras _et italique_** et `code <x>`\nsuite ~~barré~~  \nligne");
    expect(blocks[0]).toEqual({ kind: "heading", level: 1, runs: [run("Titre "), run("accentué", { italic: true })] });
    expect(runsOf(blocks[1])).toEqual([
      run("Un "),
      run("gras ", { bold: true }),
      run("et italique", { bold: true, italic: true }),
      run(" et "),
      run("code <x>", { code: true }),
      run(" suite "),
      run("barré", { strike: true }),
      run("\nligne"),
    ]);
  });

  test("HTML entities are decoded in text, not in code spans", () => {
    const blocks = markdownBlocks("Tom &amp; Jerry&#39;s &quot;show&quot; &eacute;t&#233; &copy; AT&T &copy\n\n`&amp; stays`");
    expect(plainText(runsOf(blocks[0]))).toBe(`Tom & Jerry's "show" été © AT&T &copy`);
    expect(runsOf(blocks[1])).toEqual([run("&amp; stays", { code: true })]);
  });

  test("nested lists, ordered starts and task items", () => {
    const [list] = markdownBlocks("3. trois\n4. quatre\n   - sous\n   - [x] fait\n   - [ ] à faire\n     1. profond\n");
    expect(list).toMatchObject({ kind: "list", ordered: true, start: 3 });
    if (list?.kind !== "list") throw new Error("not a list");
    expect(list.items.map((item) => plainText(runsOf(item.blocks[0])))).toEqual(["trois", "quatre"]);
    const nested = list.items[1]!.blocks[1];
    if (nested?.kind !== "list") throw new Error("no nested list");
    expect(nested.ordered).toBe(false);
    expect(nested.items.map((item) => item.checked)).toEqual([null, true, false]);
    expect(nested.items.map(taskBox)).toEqual([null, "☑", "☐"]);
    expect(nested.items.map((item) => plainText(runsOf(item.blocks[0])))).toEqual(["sous", "fait", "à faire"]);
    const deepest = nested.items[2]!.blocks[1];
    expect(deepest).toMatchObject({ kind: "list", ordered: true, start: 1, items: [{ checked: null, blocks: [{ kind: "paragraph", runs: [run("profond")] }] }] });
  });

  test("a loose list item keeps its paragraphs", () => {
    const [list] = markdownBlocks("- premier\n\n  suite du premier\n- second\n");
    if (list?.kind !== "list") throw new Error("not a list");
    expect(list.items[0]!.blocks.map((block) => plainText(runsOf(block)))).toEqual(["premier", "suite du premier"]);
  });

  test("tables with alignment and styled cells; quotes, code, rules", () => {
    const blocks = markdownBlocks("| A | B | C |\n|:--|--:|:-:|\n| **x** | y &lt; z | `c` |\n\n> cité\n\n```ts\nconst a = 1;\n  indenté\n```\n\n---\n");
    expect(blocks[0]).toEqual({
      kind: "table",
      header: [[run("A")], [run("B")], [run("C")]],
      rows: [[[run("x", { bold: true })], [run("y < z")], [run("c", { code: true })]]],
      align: ["left", "right", "center"],
    });
    expect(blocks[1]).toEqual({ kind: "blockquote", blocks: [{ kind: "paragraph", runs: [run("cité")] }] });
    expect(blocks[2]).toEqual({ kind: "code", text: "const a = 1;\n  indenté" });
    expect(blocks[3]).toEqual({ kind: "hr" });
  });

  test("raw HTML is kept as literal text, never interpreted", () => {
    const blocks = markdownBlocks('<script>alert("x")</script>\n\nA <b onclick="x">bold</b> word\n\n<div>\n<p>bloc</p>\n</div>\n');
    expect(plainText(runsOf(blocks[0]))).toBe('<script>alert("x")</script>');
    expect(runsOf(blocks[1])).toEqual([run('A <b onclick="x">bold</b> word')]);
    expect(plainText(runsOf(blocks[2]))).toBe("<div>\n<p>bloc</p>\n</div>");
  });

  test("links: http(s) and mailto kept, others (javascript:, relative paths) shown as text only", () => {
    const blocks = markdownBlocks("[site](https://example.org/a?b=1) [mail](mailto:a@b.example) [piège](javascript:alert(1)) [fichier](/var/lib/x) <https://auto.example>");
    expect(runsOf(blocks[0])).toEqual([
      run("site", { link: "https://example.org/a?b=1" }),
      run(" "),
      run("mail", { link: "mailto:a@b.example" }),
      run(" piège fichier "),
      run("https://auto.example", { link: "https://auto.example" }),
    ]);
  });

  test("an image stands as its alternative text; empty Markdown gives no blocks", () => {
    expect(runsOf(markdownBlocks("![schéma &amp; plan](plan.png)")[0])).toEqual([run("schéma & plan")]);
    expect(markdownBlocks("")).toEqual([]);
    expect(markdownBlocks("\n\n  \n")).toEqual([]);
  });
});

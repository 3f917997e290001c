/**
 * A document's Markdown as a small block model, from marked's tokens (its lexer only: nothing is
 * rendered as HTML). Both renderers draw this model, so a PDF and a DOCX of one document cannot
 * disagree. Raw HTML in the Markdown is kept as its literal text, never interpreted.
 */
import { decodeHTML } from "entities";
import { marked, type Token, type Tokens } from "marked";

export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  strike?: boolean;
  link?: string;
}

export type Align = "left" | "center" | "right" | null;

export type Block =
  | { kind: "heading"; level: number; runs: Run[] }
  | { kind: "paragraph"; runs: Run[] }
  | { kind: "list"; ordered: boolean; start: number; items: ListItem[] }
  | { kind: "table"; header: Run[][]; rows: Run[][][]; align: Align[] }
  | { kind: "code"; text: string }
  | { kind: "quote"; blocks: Block[] }
  | { kind: "rule" };

export interface ListItem {
  /** null: not a task; else whether it is checked. */
  checked: boolean | null;
  blocks: Block[];
}

type Style = Omit<Run, "text">;

/** Inline tokens to runs, styles inherited from the enclosing emphasis. */
function runsOf(tokens: readonly Token[] | undefined, style: Style = {}): Run[] {
  const runs: Run[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case "strong":
        runs.push(...runsOf((token as Tokens.Strong).tokens, { ...style, bold: true }));
        break;
      case "em":
        runs.push(...runsOf((token as Tokens.Em).tokens, { ...style, italic: true }));
        break;
      case "del":
        runs.push(...runsOf((token as Tokens.Del).tokens, { ...style, strike: true }));
        break;
      case "codespan":
        runs.push({ ...style, code: true, text: decodeHTML((token as Tokens.Codespan).text) });
        break;
      case "link":
        runs.push(...runsOf((token as Tokens.Link).tokens, { ...style, link: (token as Tokens.Link).href }));
        break;
      case "image":
        runs.push({ ...style, text: (token as Tokens.Image).text || (token as Tokens.Image).href });
        break;
      case "br":
        runs.push({ ...style, text: "\n" });
        break;
      case "text": {
        const text = token as Tokens.Text;
        if (text.tokens?.length) runs.push(...runsOf(text.tokens, style));
        else runs.push({ ...style, text: decodeHTML(text.text) });
        break;
      }
      case "escape":
        runs.push({ ...style, text: (token as Tokens.Escape).text });
        break;
      case "checkbox":
        break; // shown by the list item
      default:
        // html and anything else: the literal text, as written.
        runs.push({ ...style, text: "text" in token ? String(token.text) : token.raw });
    }
  }
  return merge(runs);
}

/** Adjacent runs of one style joined; newlines inside paragraphs (soft breaks) become spaces. */
function merge(runs: Run[]): Run[] {
  const out: Run[] = [];
  for (const run of runs) {
    const text = run.text === "\n" ? "\n" : run.text.replace(/\n/g, " ");
    const last = out.at(-1);
    const same = last && last.bold === run.bold && last.italic === run.italic && last.code === run.code && last.strike === run.strike && last.link === run.link;
    if (same) last.text += text;
    else if (text) out.push({ ...run, text });
  }
  return out;
}

function blocksOf(tokens: readonly Token[]): Block[] {
  const blocks: Block[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case "heading":
        blocks.push({ kind: "heading", level: (token as Tokens.Heading).depth, runs: runsOf((token as Tokens.Heading).tokens) });
        break;
      case "paragraph":
        blocks.push({ kind: "paragraph", runs: runsOf((token as Tokens.Paragraph).tokens) });
        break;
      case "text": {
        // Text directly in a list item (a tight list): a paragraph of its own.
        const text = token as Tokens.Text;
        blocks.push({ kind: "paragraph", runs: text.tokens ? runsOf(text.tokens) : [{ text: decodeHTML(text.text) }] });
        break;
      }
      case "list": {
        const list = token as Tokens.List;
        blocks.push({
          kind: "list",
          ordered: list.ordered,
          start: typeof list.start === "number" ? list.start : 1,
          items: list.items.map((item) => ({ checked: item.task ? Boolean(item.checked) : null, blocks: blocksOf(item.tokens) })),
        });
        break;
      }
      case "table": {
        const table = token as Tokens.Table;
        blocks.push({
          kind: "table",
          header: table.header.map((cell) => runsOf(cell.tokens)),
          rows: table.rows.map((row) => row.map((cell) => runsOf(cell.tokens))),
          align: table.align,
        });
        break;
      }
      case "code":
        blocks.push({ kind: "code", text: (token as Tokens.Code).text });
        break;
      case "blockquote":
        blocks.push({ kind: "quote", blocks: blocksOf((token as Tokens.Blockquote).tokens) });
        break;
      case "hr":
        blocks.push({ kind: "rule" });
        break;
      case "html":
        blocks.push({ kind: "paragraph", runs: [{ text: (token as Tokens.HTML).text.trim() }] });
        break;
      case "space":
      case "def":
      case "checkbox": // a task item's box: shown by the list item
        break;
      default:
        if (token.raw.trim()) blocks.push({ kind: "paragraph", runs: [{ text: token.raw.trim() }] });
    }
  }
  return blocks;
}

/** The document's blocks (GitHub-flavoured Markdown: tables, task lists, strikethrough). */
export function markdownBlocks(markdown: string): Block[] {
  return blocksOf(marked.lexer(markdown, { gfm: true }));
}

/** The plain text of some runs. */
export function plainText(runs: readonly Run[]): string {
  return runs.map((run) => run.text).join("");
}

/**
 * A document's Markdown as a small block model, built from marked's tokens (its lexer only:
 * nothing is rendered as HTML, and no Markdown is parsed by hand here). Both renderers draw this
 * model, so a PDF and a DOCX of one document cannot disagree. Raw HTML in the Markdown is kept as
 * its literal text, never interpreted.
 */
import { decodeHTMLStrict } from "entities";
import { marked, type Token, type Tokens } from "marked";
import { xmlSafeText } from "../../lib/xml-text.ts";

/** A stretch of text in one style. */
export interface Run {
  text: string;
  bold: boolean;
  italic: boolean;
  code: boolean;
  strike: boolean;
  /** An http(s) or mailto address; other links are shown as their text only. */
  link?: string;
}

export type Align = "left" | "center" | "right" | null;

export type Block =
  | { kind: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; runs: Run[] }
  | { kind: "paragraph"; runs: Run[] }
  | { kind: "list"; ordered: boolean; start: number; items: ListItem[] }
  | { kind: "table"; header: Run[][]; rows: Run[][][]; align: Align[] }
  | { kind: "code"; text: string }
  | { kind: "blockquote"; blocks: Block[] }
  | { kind: "hr" };

export interface ListItem {
  /** null: not a task item; else whether its box is ticked (drawn ☑ or ☐ by the renderers). */
  checked: boolean | null;
  blocks: Block[];
}

type Style = Omit<Run, "text">;

const PLAIN: Style = { bold: false, italic: false, code: false, strike: false };

/**
 * Links the documents may carry. The Markdown comes from a language model that read a meeting's
 * words, so a `javascript:`, `file:` or relative link would be a trap (or a path) in a document
 * handed around: those keep their text and lose the link.
 */
function safeLink(href: string): string | undefined {
  return /^(https?:\/\/|mailto:)/i.test(href.trim()) ? href.trim() : undefined;
}

/**
 * marked leaves entity references (`&amp;`, `&#39;`, `&quot;`) in its text tokens and escapes
 * some characters itself; the documents show the characters. Strict: an entity needs its `;`, as
 * CommonMark says (so "&copy" stays as written). Code spans, escapes and raw HTML are literal.
 */
function decoded(text: string): string {
  // A reference may name a character XML forbids (&#1;, &#xFFFE;): dropped as if written raw (lib/xml-text.ts).
  return xmlSafeText(decodeHTMLStrict(text));
}

/** Inline tokens to runs, each inheriting the emphasis around it. */
function runsOf(tokens: readonly Token[] | undefined, style: Style = PLAIN): Run[] {
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
        runs.push({ ...style, code: true, text: (token as Tokens.Codespan).text });
        break;
      case "link": {
        const link = safeLink((token as Tokens.Link).href);
        const inner = runsOf((token as Tokens.Link).tokens, style);
        runs.push(...(link ? inner.map((run) => ({ ...run, link })) : inner));
        break;
      }
      case "image": // no images in the documents: the alternative text stands in
        runs.push({ ...style, text: decoded((token as Tokens.Image).text) });
        break;
      case "br":
        runs.push({ ...style, text: "\n" });
        break;
      case "text": {
        const text = token as Tokens.Text;
        if (text.tokens?.length) runs.push(...runsOf(text.tokens, style));
        else runs.push({ ...style, text: decoded(text.text) });
        break;
      }
      case "escape":
        runs.push({ ...style, text: (token as Tokens.Escape).text });
        break;
      case "checkbox":
        break; // a task item's box: drawn by the list item
      default:
        // Inline HTML (and any token this module does not know): its literal source text.
        runs.push({ ...style, text: token.raw });
    }
  }
  return merge(runs);
}

function sameStyle(a: Run, b: Run): boolean {
  return a.bold === b.bold && a.italic === b.italic && a.code === b.code && a.strike === b.strike && a.link === b.link;
}

/** Adjacent runs of one style joined; a soft line break inside a paragraph becomes a space. */
function merge(runs: Run[]): Run[] {
  const out: Run[] = [];
  for (const run of runs) {
    const text = run.text === "\n" ? "\n" : run.text.replace(/\n/g, " ");
    if (!text) continue;
    const last = out.at(-1);
    if (last && sameStyle(last, run)) last.text += text;
    else out.push({ ...run, text });
  }
  return out;
}

/** A paragraph of literal text, line breaks kept (raw HTML blocks, unknown block tokens). */
function literal(text: string): Block {
  return { kind: "paragraph", runs: [{ ...PLAIN, text }] };
}

function blocksOf(tokens: readonly Token[]): Block[] {
  const blocks: Block[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case "heading": {
        const heading = token as Tokens.Heading;
        const level = Math.min(6, Math.max(1, heading.depth)) as 1 | 2 | 3 | 4 | 5 | 6;
        blocks.push({ kind: "heading", level, runs: runsOf(heading.tokens) });
        break;
      }
      case "paragraph":
        blocks.push({ kind: "paragraph", runs: runsOf((token as Tokens.Paragraph).tokens) });
        break;
      case "text": {
        // Text directly in a tight list's item: a paragraph of its own.
        const text = token as Tokens.Text;
        blocks.push({ kind: "paragraph", runs: text.tokens ? runsOf(text.tokens) : merge([{ ...PLAIN, text: decoded(text.text) }]) });
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
        blocks.push({ kind: "blockquote", blocks: blocksOf((token as Tokens.Blockquote).tokens) });
        break;
      case "hr":
        blocks.push({ kind: "hr" });
        break;
      case "html": {
        const html = (token as Tokens.HTML).text.trim();
        if (html) blocks.push(literal(html));
        break;
      }
      case "space":
      case "def": // a link reference definition: used by marked, shows nothing
      case "checkbox": // a task item's box: drawn by the list item
        break;
      default:
        if (token.raw.trim()) blocks.push(literal(token.raw.trim()));
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

/** A task item's box, or null for an ordinary item. */
export function taskBox(item: ListItem): string | null {
  return item.checked === null ? null : item.checked ? "☑" : "☐";
}

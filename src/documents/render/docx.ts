/**
 * A document as DOCX with the docx package: the same header and blocks as the PDF (both draw
 * blocks.ts's model). The fonts are named, not embedded: the text is Unicode XML that any word
 * processor shows with its own wide-coverage fonts, falling back where DejaVu Sans is not
 * installed, and embedding would add about 700 KB (or a CJK font's 20 MB) to every file.
 */
import {
  AlignmentType,
  BorderStyle,
  Document,
  ExternalHyperlink,
  Footer,
  HeadingLevel,
  LevelFormat,
  PageNumber,
  Packer,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
  type ILevelsOptions,
  type INumberingOptions,
  type ParagraphChild,
} from "docx";
import { markdownBlocks, taskBox, type Align, type Block, type Run } from "./blocks.ts";
import { fontFace } from "./fonts.ts";
import { headerDate, headerWords, xmlSafeInput, type RenderInput } from "./types.ts";

const FONT = "DejaVu Sans";
const MONO = "DejaVu Sans Mono";
/** Code's font for Latin and complex scripts; East Asian text in code keeps the document's eastAsia font. */
const MONO_FONT = { ascii: MONO, hAnsi: MONO, cs: MONO };
/** East Asian text's font when the CJK font's own family name cannot be read. */
const CJK_FALLBACK = "Noto Sans CJK SC";
/** Sizes in half-points, lengths in twentieths of a point (twips), as Word counts them. */
const BODY_SIZE = 21;
const CODE_SIZE = 18;
const GREY = "555555";
const LIGHT = "F2F2F2";
const LINE = "BBBBBB";
/** A4, 56 pt margins: the PDF's page. */
const PAGE = { width: 11906, height: 16838, margin: 1120 };
const TEXT_WIDTH = PAGE.width - 2 * PAGE.margin;
const LIST_INDENT = 360;
const QUOTE_INDENT = 567;
const HEADINGS = {
  1: HeadingLevel.HEADING_1,
  2: HeadingLevel.HEADING_2,
  3: HeadingLevel.HEADING_3,
  4: HeadingLevel.HEADING_4,
  5: HeadingLevel.HEADING_5,
  6: HeadingLevel.HEADING_6,
} as const;
const ALIGN = { left: AlignmentType.LEFT, center: AlignmentType.CENTER, right: AlignmentType.RIGHT } as const;

/** Text runs; a line break inside a run (Markdown's hard break) becomes Word's break. Links stay links. */
function textRuns(runs: readonly Run[], extra: { bold?: boolean; size?: number; color?: string } = {}): ParagraphChild[] {
  return runs.map((run) => {
    const children = run.text.split("\n").map(
      (line, i) =>
        new TextRun({
          text: line,
          break: i > 0 ? 1 : undefined,
          // Only what is set: an explicit "false" would override the paragraph style (a bold heading).
          bold: run.bold || extra.bold || undefined,
          italics: run.italic || undefined,
          strike: run.strike || undefined,
          size: run.code ? (extra.size ?? BODY_SIZE) - 2 : extra.size,
          color: run.link ? "1155CC" : extra.color,
          underline: run.link ? {} : undefined,
          font: run.code ? MONO_FONT : undefined,
        }),
    );
    return run.link ? new ExternalHyperlink({ link: run.link, children }) : children;
  }).flat();
}

/**
 * What a walk over the blocks shares: each ordered list gets a numbering definition of its own,
 * so it starts at its own number (Markdown's `3.`) and restarts after another list.
 */
class Numbering {
  readonly config: INumberingOptions["config"][number][] = [];

  ordered(start: number): string {
    const reference = `ordered-${this.config.length + 1}`;
    const levels: ILevelsOptions[] = Array.from({ length: 9 }, (_, level) => ({
      level,
      start,
      format: LevelFormat.DECIMAL,
      text: `%${level + 1}.`,
      alignment: AlignmentType.START,
      style: { paragraph: { indent: { left: LIST_INDENT * (level + 2), hanging: LIST_INDENT } } },
    }));
    this.config.push({ reference, levels });
    return reference;
  }
}

/** Where blocks sit: their list depth, their left indent, and whether they are quoted. */
interface Place {
  depth: number;
  indent: number;
  quote: boolean;
}

const TOP: Place = { depth: 0, indent: 0, quote: false };

function paragraphsOf(blocks: readonly Block[], numbering: Numbering, place: Place = TOP): (Paragraph | Table)[] {
  const out: (Paragraph | Table)[] = [];
  const indent = place.indent ? { left: place.indent } : undefined;
  const border = place.quote ? { left: { style: BorderStyle.SINGLE, size: 12, color: LINE, space: 8 } } : undefined;
  for (const block of blocks) {
    switch (block.kind) {
      case "heading":
        out.push(new Paragraph({ heading: HEADINGS[block.level], indent, children: textRuns(block.runs) }));
        break;
      case "paragraph":
        out.push(new Paragraph({ children: textRuns(block.runs), indent, border, spacing: { after: 120 } }));
        break;
      case "list": {
        const reference = block.ordered ? numbering.ordered(block.start) : null;
        const level = Math.min(place.depth, 8);
        const inner: Place = { ...place, depth: place.depth + 1, indent: LIST_INDENT * (level + 2) + (place.quote ? QUOTE_INDENT : 0) };
        for (const item of block.items) {
          const [first, ...rest] = item.blocks;
          const box = taskBox(item);
          const runs = textRuns(first?.kind === "paragraph" ? first.runs : []);
          // A task item's box stands where its bullet or number would, as in the PDF.
          const marker = box
            ? { children: [new TextRun({ text: `${box} ` }), ...runs], indent: { left: LIST_INDENT * (level + 2), hanging: LIST_INDENT } }
            : { children: runs, ...(reference ? { numbering: { reference, level } } : { bullet: { level } }) };
          out.push(new Paragraph({ ...marker, border }));
          out.push(...paragraphsOf(first?.kind === "paragraph" ? rest : item.blocks, numbering, inner));
        }
        break;
      }
      case "table":
        out.push(table(block, TEXT_WIDTH - place.indent), new Paragraph({ children: [] }));
        break;
      case "code":
        // One paragraph a line, on one grey band: Word keeps the lines and their leading spaces.
        for (const line of block.text.replace(/\t/g, "    ").split("\n")) {
          out.push(
            new Paragraph({
              indent,
              shading: { type: ShadingType.CLEAR, fill: LIGHT, color: "auto" },
              spacing: { after: 0 },
              children: [new TextRun({ text: line, font: MONO_FONT, size: CODE_SIZE })],
            }),
          );
        }
        out.push(new Paragraph({ children: [] }));
        break;
      case "blockquote":
        out.push(...paragraphsOf(block.blocks, numbering, { ...place, indent: place.indent + QUOTE_INDENT, quote: true }));
        break;
      case "hr":
        out.push(new Paragraph({ indent, border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: LINE, space: 1 } }, children: [] }));
        break;
    }
  }
  return out;
}

/** A grid of equal columns (widths in twips: Word and LibreOffice both honour those), the header row repeated on each page. */
function table(block: Extract<Block, { kind: "table" }>, width: number): Table {
  const columns = Math.max(1, block.header.length, ...block.rows.map((row) => row.length));
  const columnWidth = Math.floor(width / columns);
  const row = (cells: Run[][], header: boolean) =>
    new TableRow({
      tableHeader: header, // repeated at the top of each page; rows may break across pages (Word cuts a taller-than-a-page row that may not)
      children: Array.from(
        { length: columns },
        (_, i) =>
          new TableCell({
            width: { size: columnWidth, type: WidthType.DXA },
            shading: header ? { type: ShadingType.CLEAR, fill: LIGHT, color: "auto" } : undefined,
            children: [new Paragraph({ alignment: alignOf(block.align[i] ?? null), children: textRuns(cells[i] ?? [], { bold: header, size: 19 }) })],
          }),
      ),
    });
  return new Table({
    width: { size: columnWidth * columns, type: WidthType.DXA },
    columnWidths: Array.from({ length: columns }, () => columnWidth),
    rows: [row(block.header, true), ...block.rows.map((cells) => row(cells, false))],
  });
}

function alignOf(align: Align): (typeof ALIGN)[keyof typeof ALIGN] | undefined {
  return align ? ALIGN[align] : undefined;
}

function header(input: RenderInput["header"]): Paragraph[] {
  const words = headerWords(input.language);
  const grey = { color: GREY, size: 20 };
  const lines = [new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun({ text: input.title })] })];
  if (input.meetingTitle && input.meetingTitle !== input.title) {
    lines.push(new Paragraph({ children: [new TextRun({ text: `${words.meeting}: ${input.meetingTitle}`, ...grey })] }));
  }
  lines.push(new Paragraph({ children: [new TextRun({ text: `${words.date}: ${headerDate(input.date)}`, ...grey })] }));
  if (input.participants.length) {
    lines.push(new Paragraph({ children: [new TextRun({ text: `${words.participants}: ${input.participants.join(", ")}`, ...grey })] }));
  }
  lines.push(new Paragraph({ border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: LINE, space: 1 } }, spacing: { after: 240 }, children: [] }));
  return lines;
}

/** "n / N" in the footer, as in the PDF: Word fills the fields in. */
function pageNumbers(): Footer {
  return new Footer({
    children: [
      new Paragraph({
        alignment: AlignmentType.CENTER,
        children: [new TextRun({ children: [PageNumber.CURRENT, " / ", PageNumber.TOTAL_PAGES], size: 16, color: GREY })],
      }),
    ],
  });
}

export async function renderDocx(unsafeInput: RenderInput): Promise<Uint8Array> {
  const input = xmlSafeInput(unsafeInput);
  // East Asian characters take the eastAsia font (Word picks the slot per character). Named only
  // when the operator configured a CJK font; otherwise the word processor's own East Asian default
  // serves better than DejaVu Sans, which has no CJK glyphs.
  const eastAsia = input.fonts.cjk ? (fontFace(input.fonts.cjk)?.family ?? CJK_FALLBACK) : undefined;
  const numbering = new Numbering();
  const body = paragraphsOf(markdownBlocks(input.markdown), numbering);
  const document = new Document({
    creator: "Verbatim",
    lastModifiedBy: "Verbatim",
    title: input.header.title,
    styles: {
      default: {
        document: { run: { font: { ascii: FONT, hAnsi: FONT, cs: FONT, ...(eastAsia ? { eastAsia } : {}) }, size: BODY_SIZE } },
      },
    },
    numbering: { config: numbering.config },
    sections: [
      {
        properties: { page: { size: { width: PAGE.width, height: PAGE.height }, margin: { top: PAGE.margin, bottom: PAGE.margin, left: PAGE.margin, right: PAGE.margin } } },
        footers: { default: pageNumbers() },
        children: [...header(input.header), ...body],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

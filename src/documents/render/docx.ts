/**
 * A document as DOCX with the docx package: the same header and blocks as the PDF. The font is
 * named (DejaVu Sans, and the CJK font's family for East Asian text) but not embedded: the text is
 * Unicode XML that any word processor shows with its own wide-coverage fonts, and embedding would
 * add about 700 KB to every file.
 */
import {
  AlignmentType,
  BorderStyle,
  Document,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
  type ParagraphChild,
} from "docx";
import { markdownBlocks, type Align, type Block, type Run } from "./blocks.ts";
import { headerDate, headerWords, type RenderInput } from "./types.ts";

const FONT = "DejaVu Sans";
const MONO = "DejaVu Sans Mono";
const CJK_FONT = "Noto Sans CJK SC";
const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6];
const ALIGN = { left: AlignmentType.LEFT, center: AlignmentType.CENTER, right: AlignmentType.RIGHT } as const;

function textRuns(runs: readonly Run[], extra: { bold?: boolean; size?: number; color?: string } = {}): ParagraphChild[] {
  return runs.flatMap((run) =>
    run.text.split("\n").map(
      (line, i) =>
        new TextRun({
          text: line,
          break: i > 0 ? 1 : undefined,
          bold: run.bold || extra.bold,
          italics: run.italic,
          strike: run.strike,
          size: extra.size,
          color: run.link ? "1155CC" : extra.color,
          underline: run.link ? {} : undefined,
          font: run.code ? MONO : undefined,
        }),
    ),
  );
}

/** A state shared across one document: ordered lists each restart their numbering. */
interface Context {
  orderedLists: number;
}

function paragraphsOf(blocks: readonly Block[], context: Context, depth = 0, quote = false): (Paragraph | Table)[] {
  const out: (Paragraph | Table)[] = [];
  const indent = quote ? { left: 567 } : undefined;
  const quoteBorder = quote ? { left: { style: BorderStyle.SINGLE, size: 12, color: "BBBBBB", space: 8 } } : undefined;
  for (const block of blocks) {
    switch (block.kind) {
      case "heading":
        out.push(new Paragraph({ heading: HEADINGS[block.level - 1] ?? HeadingLevel.HEADING_6, children: textRuns(block.runs) }));
        break;
      case "paragraph":
        out.push(new Paragraph({ children: textRuns(block.runs), indent, border: quoteBorder, spacing: { after: 120 } }));
        break;
      case "list": {
        const instance = block.ordered ? ++context.orderedLists : 0;
        for (const item of block.items) {
          const [first, ...rest] = item.blocks;
          const marker = item.checked === null ? [] : [new TextRun({ text: item.checked ? "☑ " : "☐ " })];
          const runs = first?.kind === "paragraph" ? first.runs : [];
          out.push(
            new Paragraph({
              children: [...marker, ...textRuns(runs)],
              ...(block.ordered && item.checked === null
                ? { numbering: { reference: "ordered", level: Math.min(depth, 8), instance } }
                : { bullet: { level: Math.min(depth, 8) } }),
            }),
          );
          out.push(...paragraphsOf(first?.kind === "paragraph" ? rest : item.blocks, context, depth + 1, quote));
        }
        break;
      }
      case "table": {
        const columns = Math.max(1, block.header.length);
        const row = (cells: Run[][], header: boolean) =>
          new TableRow({
            tableHeader: header,
            children: Array.from({ length: columns }, (_, i) =>
              new TableCell({
                shading: header ? { type: ShadingType.CLEAR, fill: "F2F2F2", color: "auto" } : undefined,
                children: [new Paragraph({ alignment: alignOf(block.align[i] ?? null), children: textRuns(cells[i] ?? [], { bold: header }) })],
              }),
            ),
          });
        out.push(new Table({ width: { size: 100, type: WidthType.PERCENTAGE }, rows: [row(block.header, true), ...block.rows.map((r) => row(r, false))] }));
        out.push(new Paragraph({ children: [] }));
        break;
      }
      case "code":
        for (const line of block.text.split("\n")) {
          out.push(
            new Paragraph({
              shading: { type: ShadingType.CLEAR, fill: "F2F2F2", color: "auto" },
              spacing: { after: 0 },
              children: [new TextRun({ text: line, font: MONO, size: 18 })],
            }),
          );
        }
        out.push(new Paragraph({ children: [] }));
        break;
      case "quote":
        out.push(...paragraphsOf(block.blocks, context, depth, true));
        break;
      case "rule":
        out.push(new Paragraph({ border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: "BBBBBB", space: 1 } }, children: [] }));
        break;
    }
  }
  return out;
}

function alignOf(align: Align): (typeof ALIGN)[keyof typeof ALIGN] | undefined {
  return align ? ALIGN[align] : undefined;
}

function header(input: RenderInput["header"]): Paragraph[] {
  const words = headerWords(input.language);
  const grey = { color: "555555", size: 20 };
  const lines = [new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun({ text: input.title })] })];
  if (input.meetingTitle && input.meetingTitle !== input.title) {
    lines.push(new Paragraph({ children: [new TextRun({ text: `${words.meeting}: ${input.meetingTitle}`, ...grey })] }));
  }
  lines.push(new Paragraph({ children: [new TextRun({ text: `${words.date}: ${headerDate(input.date)}`, ...grey })] }));
  if (input.participants.length) {
    lines.push(new Paragraph({ children: [new TextRun({ text: `${words.participants}: ${input.participants.join(", ")}`, ...grey })] }));
  }
  lines.push(new Paragraph({ border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: "BBBBBB", space: 1 } }, children: [] }));
  return lines;
}

export async function renderDocx(input: RenderInput): Promise<Uint8Array> {
  const document = new Document({
    creator: "Verbatim",
    title: input.header.title,
    styles: {
      default: {
        document: { run: { font: { ascii: FONT, hAnsi: FONT, cs: FONT, eastAsia: input.fonts.cjk ? CJK_FONT : FONT }, size: 21 } },
      },
    },
    numbering: {
      config: [
        {
          reference: "ordered",
          levels: Array.from({ length: 9 }, (_, level) => ({
            level,
            format: LevelFormat.DECIMAL,
            text: `%${level + 1}.`,
            alignment: AlignmentType.START,
            style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
          })),
        },
      ],
    },
    sections: [{ children: [...header(input.header), ...paragraphsOf(markdownBlocks(input.markdown), { orderedLists: 0 })] }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

/**
 * A document as PDF with pdfkit: a header (title, meeting, date, participants), then the blocks of
 * blocks.ts, page numbers in the footer. Only the embedded fonts are used (pdfkit's own Helvetica
 * files are not in the executable, so the document's default font is given as a buffer), subset
 * into the file by pdfkit; runs holding CJK characters use the operator's CJK font when there is one.
 */
import PDFDocument from "pdfkit";
import { markdownBlocks, plainText, type Block, type Run } from "./blocks.ts";
import { CJK, headerDate, headerWords, type DocumentFonts, type RenderInput } from "./types.ts";

type Doc = PDFKit.PDFDocument;

const MARGIN = { top: 56, bottom: 64, left: 56, right: 56 };
const BODY_SIZE = 10.5;
const HEADING_SIZES = [0, 18, 15, 13, 12, 11, 11];
const GREY = "#555555";
const LIGHT = "#f2f2f2";
const LINE = "#bbbbbb";

function fontName(run: Run, fonts: DocumentFonts): string {
  if (fonts.cjk && CJK.test(run.text)) return "cjk";
  if (run.code) return "mono";
  if (run.bold && run.italic) return "bold-italic";
  if (run.bold) return "bold";
  if (run.italic) return "italic";
  return "regular";
}

class Layout {
  constructor(
    readonly doc: Doc,
    readonly fonts: DocumentFonts,
  ) {}

  get left() {
    return MARGIN.left;
  }

  get width() {
    return this.doc.page.width - MARGIN.left - MARGIN.right;
  }

  get bottom() {
    return this.doc.page.height - MARGIN.bottom;
  }

  /** A new page unless `height` points fit on this one. */
  ensure(height: number): void {
    if (this.doc.y + height > this.bottom) this.doc.addPage();
  }

  /** Runs as one flowing paragraph at x, `width` wide, from the current y. */
  runs(runs: readonly Run[], x: number, width: number, size: number, options: { color?: string; bold?: boolean } = {}): void {
    const { doc } = this;
    const list = runs.length ? runs : [{ text: "" }];
    doc.fillColor(options.color ?? "black");
    list.forEach((run, index) => {
      const styled = options.bold ? { ...run, bold: true } : run;
      doc.font(fontName(styled, this.fonts)).fontSize(run.code ? size - 1 : size);
      const more = index < list.length - 1;
      const style = { continued: more, strike: run.strike === true, underline: run.link !== undefined, link: run.link ?? null };
      if (index === 0) doc.text(run.text, x, doc.y, { ...style, width });
      else doc.text(run.text, style);
    });
    doc.fillColor("black");
  }

  /** The height `runs` take at `width`, measured in the regular (or bold) face. */
  heightOf(runs: readonly Run[], width: number, size: number, bold = false): number {
    const text = plainText(runs) || " ";
    this.doc.font(bold ? "bold" : fontName({ text }, this.fonts)).fontSize(size);
    return this.doc.heightOfString(text, { width });
  }
}

function drawHeader(layout: Layout, header: RenderInput["header"]): void {
  const { doc } = layout;
  const words = headerWords(header.language);
  layout.runs([{ text: header.title, bold: true }], layout.left, layout.width, 20);
  doc.moveDown(0.3);
  if (header.meetingTitle && header.meetingTitle !== header.title) {
    layout.runs([{ text: `${words.meeting}: ${header.meetingTitle}` }], layout.left, layout.width, 11, { color: GREY });
  }
  layout.runs([{ text: `${words.date}: ${headerDate(header.date)}` }], layout.left, layout.width, 10, { color: GREY });
  if (header.participants.length) {
    layout.runs([{ text: `${words.participants}: ${header.participants.join(", ")}` }], layout.left, layout.width, 10, { color: GREY });
  }
  doc.moveDown(0.5);
  doc.moveTo(layout.left, doc.y).lineTo(layout.left + layout.width, doc.y).lineWidth(0.8).strokeColor(LINE).stroke();
  doc.moveDown(0.8);
}

function drawBlocks(layout: Layout, blocks: readonly Block[], x: number, width: number, depth = 0): void {
  const { doc } = layout;
  for (const block of blocks) {
    switch (block.kind) {
      case "heading": {
        const size = HEADING_SIZES[block.level] ?? BODY_SIZE;
        doc.moveDown(0.4);
        layout.ensure(size * 3);
        layout.runs(block.runs, x, width, size, { bold: true });
        doc.moveDown(0.3);
        break;
      }
      case "paragraph":
        layout.runs(block.runs, x, width, BODY_SIZE);
        doc.moveDown(0.4);
        break;
      case "list":
        drawList(layout, block, x, width, depth);
        doc.moveDown(0.2);
        break;
      case "table":
        drawTable(layout, block, x, width);
        doc.moveDown(0.6);
        break;
      case "code": {
        doc.font("mono").fontSize(9);
        const height = doc.heightOfString(block.text || " ", { width: width - 12 });
        if (height + 8 <= layout.bottom - MARGIN.top) layout.ensure(height + 8);
        const top = doc.y;
        if (top + height + 8 <= layout.bottom) doc.rect(x, top, width, height + 8).fill(LIGHT);
        doc.fillColor("black").font("mono").fontSize(9).text(block.text, x + 6, top + 4, { width: width - 12 });
        doc.y = Math.max(doc.y, top + height + 8);
        doc.moveDown(0.5);
        break;
      }
      case "quote": {
        const top = doc.y;
        const page = doc.bufferedPageRange().count;
        drawBlocks(layout, block.blocks, x + 14, width - 14, depth);
        if (doc.bufferedPageRange().count === page) {
          doc.moveTo(x + 3, top).lineTo(x + 3, doc.y - 4).lineWidth(2).strokeColor(LINE).stroke();
        }
        break;
      }
      case "rule":
        layout.ensure(12);
        doc.moveTo(x, doc.y + 4).lineTo(x + width, doc.y + 4).lineWidth(0.6).strokeColor(LINE).stroke();
        doc.moveDown(1);
        break;
    }
  }
}

function drawList(layout: Layout, list: Extract<Block, { kind: "list" }>, x: number, width: number, depth: number): void {
  const { doc } = layout;
  const indent = 16;
  list.items.forEach((item, index) => {
    const marker = item.checked !== null ? (item.checked ? "☑" : "☐") : list.ordered ? `${list.start + index}.` : depth % 2 ? "◦" : "•";
    const [first, ...rest] = item.blocks;
    layout.ensure(BODY_SIZE * 1.6);
    const top = doc.y;
    doc.font("regular").fontSize(BODY_SIZE).fillColor("black").text(marker, x, top, { width: indent + 4, lineBreak: false });
    doc.y = top;
    if (first?.kind === "paragraph") {
      layout.runs(first.runs, x + indent + 4, width - indent - 4, BODY_SIZE);
      drawBlocks(layout, rest, x + indent + 4, width - indent - 4, depth + 1);
    } else {
      doc.moveDown(1);
      drawBlocks(layout, item.blocks, x + indent + 4, width - indent - 4, depth + 1);
    }
    doc.moveDown(0.15);
  });
}

function drawTable(layout: Layout, table: Extract<Block, { kind: "table" }>, x: number, width: number): void {
  const { doc } = layout;
  const columns = Math.max(1, table.header.length);
  const cellWidth = width / columns;
  const pad = 4;
  const drawRow = (cells: Run[][], header: boolean) => {
    const height = Math.max(...cells.map((cell) => layout.heightOf(cell, cellWidth - 2 * pad, 9.5, header))) + 2 * pad;
    layout.ensure(Math.min(height, layout.bottom - MARGIN.top));
    const top = doc.y;
    if (header) doc.rect(x, top, width, height).fill(LIGHT);
    cells.forEach((cell, column) => {
      doc.y = top + pad;
      layout.runs(cell, x + column * cellWidth + pad, cellWidth - 2 * pad, 9.5, { bold: header });
    });
    doc.lineWidth(0.5).strokeColor(LINE);
    for (let column = 0; column <= columns; column++) doc.moveTo(x + column * cellWidth, top).lineTo(x + column * cellWidth, top + height).stroke();
    doc.moveTo(x, top).lineTo(x + width, top).stroke();
    doc.moveTo(x, top + height).lineTo(x + width, top + height).stroke();
    doc.y = top + height;
  };
  const pad_ = (cells: Run[][]) => Array.from({ length: columns }, (_, i) => cells[i] ?? []);
  drawRow(pad_(table.header), true);
  for (const row of table.rows) drawRow(pad_(row), false);
}

/** "n / N" at the foot of every page. */
function drawPageNumbers(doc: Doc): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Below the bottom margin pdfkit would start a new page: lift it while writing the footer.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font("regular").fontSize(8).fillColor(GREY);
    doc.text(`${i + 1} / ${range.count}`, MARGIN.left, doc.page.height - MARGIN.bottom / 2 - 4, {
      width: doc.page.width - MARGIN.left - MARGIN.right,
      align: "center",
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
  }
}

export function renderPdf(input: RenderInput): Promise<Uint8Array> {
  const { fonts } = input;
  const doc = new PDFDocument({
    size: "A4",
    margins: MARGIN,
    bufferPages: true,
    compress: true,
    font: Buffer.from(fonts.regular) as unknown as string,
    info: { Title: input.header.title, Creator: "Verbatim", Producer: "Verbatim" },
  });
  doc.registerFont("regular", Buffer.from(fonts.regular));
  doc.registerFont("bold", Buffer.from(fonts.bold));
  doc.registerFont("italic", Buffer.from(fonts.italic));
  doc.registerFont("bold-italic", Buffer.from(fonts.boldItalic));
  doc.registerFont("mono", Buffer.from(fonts.mono));
  if (fonts.cjk) doc.registerFont("cjk", Buffer.from(fonts.cjk));

  const chunks: Buffer[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on("error", reject);
  });
  const layout = new Layout(doc, fonts);
  drawHeader(layout, input.header);
  drawBlocks(layout, markdownBlocks(input.markdown), layout.left, layout.width);
  drawPageNumbers(doc);
  doc.end();
  return done;
}

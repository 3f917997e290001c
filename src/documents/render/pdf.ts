/**
 * A document as PDF with pdfkit: a header (title, date, participants), a rule, then the blocks of
 * blocks.ts, and "n / N" at the foot of every page. Only the embedded fonts are used: pdfkit's
 * own Helvetica files are not in the compiled executable, so the document's default font is given
 * as a buffer and pdfkit never loads them. pdfkit subsets each font into the file. Runs holding CJK
 * characters use the operator's CJK font when there is one (DejaVu Sans has no CJK glyphs).
 */
import PDFDocument from "pdfkit";
import { markdownBlocks, plainText, taskBox, type Align, type Block, type Run } from "./blocks.ts";
import { fontFace } from "./fonts.ts";
import { CJK, headerDate, headerWords, xmlSafeInput, type DocumentFonts, type RenderInput } from "./types.ts";

type Doc = PDFKit.PDFDocument;

/** A4 with 56 pt (about 2 cm) margins; a little more at the bottom for the page number. */
const MARGIN = { top: 56, bottom: 64, left: 56, right: 56 };
const BODY_SIZE = 10.5;
const CODE_SIZE = 9;
const TABLE_SIZE = 9.5;
const HEADING_SIZES = { 1: 18, 2: 15, 3: 13, 4: 12, 5: 11, 6: 11 } as const;
const LIST_INDENT = 20;
const QUOTE_INDENT = 14;
const CELL_PAD = 4;
const GREY = "#555555";
const LIGHT = "#f2f2f2";
const LINE = "#bbbbbb";
const LINK = "#1155cc";

/** The registered face a run is drawn in. */
type Face = "regular" | "bold" | "italic" | "bold-italic" | "mono" | "cjk";

/** A font's bytes as the Buffer pdfkit wants, without copying (a CJK font can weigh 20 MB). */
function buffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function faceOf(run: Pick<Run, "text" | "bold" | "italic" | "code">, fonts: DocumentFonts): Face {
  if (fonts.cjk && CJK.test(run.text)) return "cjk";
  if (run.code) return "mono";
  if (run.bold && run.italic) return "bold-italic";
  if (run.bold) return "bold";
  if (run.italic) return "italic";
  return "regular";
}

function plain(text: string, style: Partial<Run> = {}): Run {
  return { text, bold: false, italic: false, code: false, strike: false, ...style };
}

/** CJK characters in a row: the stretches of a run drawn in the CJK font. */
const CJK_STRETCH = new RegExp(`(${CJK.source}+)`, "u");

/**
 * A run cut where CJK text starts and ends, so only the CJK characters take the CJK font: the CJK
 * font may lack letters DejaVu Sans has (Noto Sans CJK has no Ł or έ), and a paragraph often mixes both.
 */
function cjkPieces(run: Run): Run[] {
  return run.text
    .split(CJK_STRETCH)
    .filter((piece) => piece !== "")
    .map((text) => ({ ...run, text }));
}

/** The page being drawn on (always the last one, except while numbering pages at the end). */
function lastPage(doc: Doc): number {
  const range = doc.bufferedPageRange();
  return range.start + range.count - 1;
}

/**
 * The faces, registered with pdfkit. The regular face goes under its own PostScript name: pdfkit
 * files the document's default font (the same bytes) under that name, and a switch to any other
 * name for those bytes would re-read the font file every time (its cache check returns before
 * remembering the new name), which made a ten-page render eight times slower.
 */
function registerFaces(doc: Doc, fonts: DocumentFonts): Record<Face, string> {
  const names: Record<Face, string> = {
    regular: fontFace(fonts.regular)?.postscriptName ?? "regular",
    bold: "bold",
    italic: "italic",
    "bold-italic": "bold-italic",
    mono: "mono",
    cjk: "cjk",
  };
  doc.registerFont(names.regular, buffer(fonts.regular));
  doc.registerFont(names.bold, buffer(fonts.bold));
  doc.registerFont(names.italic, buffer(fonts.italic));
  doc.registerFont(names["bold-italic"], buffer(fonts.boldItalic));
  doc.registerFont(names.mono, buffer(fonts.mono));
  if (fonts.cjk) {
    // A collection (.ttc, as Noto Sans CJK often comes) needs the face named: its first one.
    const face = fontFace(fonts.cjk);
    doc.registerFont(names.cjk, buffer(fonts.cjk), face?.collection ? face.postscriptName : undefined);
  }
  return names;
}

class Layout {
  /**
   * The regular face's ascent per point of size. pdfkit hangs each fragment from the line's top by
   * its own font's ascent, so a code span (smaller, monospaced) or a CJK stretch (another font)
   * would sit off the line; given the regular face's as every fragment's baseline, they share one.
   * pdfkit has no public getter for it: its font object's ascender (per 1000 units) is read, and
   * should that ever be missing, pdfkit's own placement is kept (null).
   */
  private readonly ascent: number | null;

  constructor(
    readonly doc: Doc,
    readonly fonts: DocumentFonts,
    private readonly names: Record<Face, string>,
  ) {
    this.use("regular", BODY_SIZE);
    const ascender = (doc as unknown as { _font?: { ascender?: unknown } })._font?.ascender;
    this.ascent = typeof ascender === "number" && ascender > 0 ? ascender / 1000 : null;
  }

  readonly left = MARGIN.left;

  /** The current font and size. */
  use(face: Face, size: number): Doc {
    return this.doc.font(this.names[face]).fontSize(size);
  }

  get width(): number {
    return this.doc.page.width - MARGIN.left - MARGIN.right;
  }

  get bottom(): number {
    return this.doc.page.height - MARGIN.bottom;
  }

  /** The height a page offers between the margins. */
  get pageHeight(): number {
    return this.bottom - MARGIN.top;
  }

  /** A new page unless `height` points still fit on this one; true when a page was added. */
  ensure(height: number): boolean {
    if (this.doc.y + Math.min(height, this.pageHeight) <= this.bottom) return false;
    this.doc.addPage();
    return true;
  }

  /**
   * Runs as one flowing paragraph at x, `width` wide, from the current y: one `text` call per run,
   * `continued` so pdfkit wraps them as one paragraph while the font changes between them.
   */
  runs(runs: readonly Run[], x: number, width: number, size: number, options: { color?: string; bold?: boolean; align?: Align } = {}): void {
    const { doc } = this;
    const split = this.fonts.cjk ? runs.flatMap(cjkPieces) : runs;
    const list = split.length ? split : [plain("")];
    const baseline = this.ascent === null ? undefined : -this.ascent * size;
    list.forEach((run, index) => {
      const styled = options.bold ? { ...run, bold: true } : run;
      this.use(faceOf(styled, this.fonts), run.code ? size - 1 : size);
      doc.fillColor(run.link ? LINK : (options.color ?? "black"));
      const style: PDFKit.Mixins.TextOptions = {
        continued: index < list.length - 1,
        strike: run.strike,
        underline: run.link !== undefined,
        link: run.link ?? null,
        baseline,
      };
      if (index === 0) doc.text(run.text, x, doc.y, { ...style, width, align: options.align ?? "left" });
      else doc.text(run.text, style);
    });
    doc.fillColor("black");
  }

  /** About the height `runs` take at `width`: measured in the face most of them use (pdfkit cannot measure mixed runs). */
  heightOf(runs: readonly Run[], width: number, size: number, bold: boolean): number {
    const text = plainText(runs) || " ";
    const face = faceOf({ text, bold: bold || runs.some((run) => run.bold), italic: false, code: runs.length > 0 && runs.every((run) => run.code) }, this.fonts);
    return this.use(face, size).heightOfString(text, { width });
  }

  line(x1: number, y1: number, x2: number, y2: number, width: number): void {
    this.doc.moveTo(x1, y1).lineTo(x2, y2).lineWidth(width).strokeColor(LINE).stroke();
  }
}

function drawHeader(layout: Layout, header: RenderInput["header"]): void {
  const { doc } = layout;
  const words = headerWords(header.language);
  layout.runs([plain(header.title, { bold: true })], layout.left, layout.width, 20);
  doc.moveDown(0.3);
  if (header.meetingTitle && header.meetingTitle !== header.title) {
    layout.runs([plain(`${words.meeting}: ${header.meetingTitle}`)], layout.left, layout.width, 11, { color: GREY });
  }
  layout.runs([plain(`${words.date}: ${headerDate(header.date)}`)], layout.left, layout.width, 10, { color: GREY });
  if (header.participants.length) {
    layout.runs([plain(`${words.participants}: ${header.participants.join(", ")}`)], layout.left, layout.width, 10, { color: GREY });
  }
  doc.moveDown(0.5);
  layout.line(layout.left, doc.y, layout.left + layout.width, doc.y, 0.8);
  doc.moveDown(0.8);
}

function drawBlocks(layout: Layout, blocks: readonly Block[], x: number, width: number, depth = 0): void {
  const { doc } = layout;
  for (const block of blocks) {
    switch (block.kind) {
      case "heading": {
        const size = HEADING_SIZES[block.level];
        doc.moveDown(0.4);
        layout.ensure(size * 1.4 + BODY_SIZE * 3); // never the last thing on a page: keep two lines with it
        layout.runs(block.runs, x, width, size, { bold: true });
        doc.moveDown(0.3);
        break;
      }
      case "paragraph":
        layout.ensure(BODY_SIZE * 1.3);
        layout.runs(block.runs, x, width, BODY_SIZE);
        doc.moveDown(0.4);
        break;
      case "list":
        drawList(layout, block, x, width, depth);
        if (depth === 0) doc.moveDown(0.2); // a nested list sits tight in its item
        break;
      case "table":
        drawTable(layout, block, x, width);
        doc.moveDown(0.6);
        break;
      case "code":
        drawCode(layout, block.text, x, width);
        doc.moveDown(0.5);
        break;
      case "blockquote":
        drawQuote(layout, block.blocks, x, width, depth);
        break;
      case "hr":
        layout.ensure(12);
        layout.line(x, doc.y + 4, x + width, doc.y + 4, 0.6);
        doc.moveDown(1);
        break;
    }
  }
}

function drawList(layout: Layout, list: Extract<Block, { kind: "list" }>, x: number, width: number, depth: number): void {
  const { doc } = layout;
  const inner = x + LIST_INDENT;
  list.items.forEach((item, index) => {
    const marker = taskBox(item) ?? (list.ordered ? `${list.start + index}.` : depth % 2 ? "◦" : "•");
    const [first, ...rest] = item.blocks;
    layout.ensure(BODY_SIZE * 1.6);
    const top = doc.y;
    layout.use("regular", BODY_SIZE).fillColor("black").text(marker, x, top, { width: LIST_INDENT, lineBreak: false });
    doc.y = top;
    if (first?.kind === "paragraph") {
      layout.runs(first.runs, inner, width - LIST_INDENT, BODY_SIZE);
      drawBlocks(layout, rest, inner, width - LIST_INDENT, depth + 1);
    } else {
      doc.moveDown(1); // the marker alone on its line, the item's blocks under it
      drawBlocks(layout, item.blocks, inner, width - LIST_INDENT, depth + 1);
    }
    doc.moveDown(0.15);
  });
}

/**
 * A grid, columns of equal width; a row that does not fit starts a new page, under the header row
 * again. A row taller than half a page cannot stay a grid row (pdfkit would flow its first cell over
 * the pages and leave the others behind): its cells follow one another, each after its column's name.
 */
function drawTable(layout: Layout, table: Extract<Block, { kind: "table" }>, x: number, width: number): void {
  const { doc } = layout;
  const columns = Math.max(1, table.header.length, ...table.rows.map((row) => row.length));
  const cellWidth = width / columns;
  const textWidth = cellWidth - 2 * CELL_PAD;
  const full = (cells: Run[][]) => Array.from({ length: columns }, (_, i) => cells[i] ?? []);

  const drawRow = (cells: Run[][], header: boolean): void => {
    const measured = Math.max(...cells.map((cell) => layout.heightOf(cell, textWidth, TABLE_SIZE, header))) + 2 * CELL_PAD;
    if (measured > layout.pageHeight / 2) return drawTallRow(cells, header);
    if (layout.ensure(measured) && !header) drawRow(full(table.header), true);
    const top = doc.y;
    if (header) doc.rect(x, top, width, measured).fill(LIGHT);
    let bottom = top + measured;
    cells.forEach((cell, column) => {
      doc.y = top + CELL_PAD;
      layout.runs(cell, x + column * cellWidth + CELL_PAD, textWidth, TABLE_SIZE, { bold: header, align: table.align[column] ?? null });
      // Mixed faces can wrap a little taller than measured: the grid follows what was drawn.
      if (doc.y > top) bottom = Math.max(bottom, doc.y + CELL_PAD);
    });
    for (let column = 0; column <= columns; column++) layout.line(x + column * cellWidth, top, x + column * cellWidth, bottom, 0.5);
    layout.line(x, top, x + width, top, 0.5);
    layout.line(x, bottom, x + width, bottom, 0.5);
    doc.y = bottom;
  };

  const drawTallRow = (cells: Run[][], header: boolean): void => {
    doc.y += CELL_PAD;
    cells.forEach((cell, column) => {
      const name = header ? "" : plainText(table.header[column] ?? []);
      layout.ensure(TABLE_SIZE * 1.3);
      layout.runs([...(name ? [plain(`${name}: `, { bold: true })] : []), ...cell], x + CELL_PAD, width - 2 * CELL_PAD, TABLE_SIZE, { bold: header });
      doc.moveDown(0.3);
    });
    layout.line(x, doc.y, x + width, doc.y, 0.5);
  };

  drawRow(full(table.header), true);
  for (const row of table.rows) drawRow(full(row), false);
}

/** Code in DejaVu Sans Mono on a light grey band, drawn line by line so the band follows page breaks. */
function drawCode(layout: Layout, code: string, x: number, width: number): void {
  const { doc } = layout;
  const pad = 6;
  layout.use("mono", CODE_SIZE);
  const band = (height: number) => doc.rect(x, doc.y, width, height).fill(LIGHT);
  // Tabs as four spaces (a tab has no glyph); leading spaces as no-break spaces, which pdfkit keeps.
  const lines = code.replace(/\t/g, "    ").split("\n").map((line) => line.replace(/^ +/, (spaces) => "\u00a0".repeat(spaces.length)) || " ");
  layout.ensure(pad + doc.currentLineHeight(true));
  band(pad);
  doc.y += pad;
  for (const line of lines) {
    const height = doc.heightOfString(line, { width: width - 2 * pad });
    layout.ensure(height);
    band(height);
    layout.use("mono", CODE_SIZE).fillColor("black").text(line, x + pad, doc.y, { width: width - 2 * pad });
  }
  band(pad);
  doc.y += pad;
}

/** Quoted blocks, indented, with a bar on their left on every page they cover. */
function drawQuote(layout: Layout, blocks: readonly Block[], x: number, width: number, depth: number): void {
  const { doc } = layout;
  const firstPage = lastPage(doc);
  const top = doc.y;
  drawBlocks(layout, blocks, x + QUOTE_INDENT, width - QUOTE_INDENT, depth);
  const endPage = lastPage(doc);
  const end = doc.y;
  for (let page = firstPage; page <= endPage; page++) {
    doc.switchToPage(page);
    layout.line(x + 3, page === firstPage ? top : MARGIN.top, x + 3, page === endPage ? end - 4 : layout.bottom, 2);
  }
  doc.switchToPage(endPage);
  doc.y = end;
}

/** "n / N" at the foot of every page, once all pages exist (bufferPages). */
function drawPageNumbers(layout: Layout): void {
  const { doc } = layout;
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Below the bottom margin pdfkit would start a new page: lift the margin while writing the footer.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    layout.use("regular", 8).fillColor(GREY);
    doc.text(`${i + 1} / ${range.count}`, MARGIN.left, doc.page.height - MARGIN.bottom / 2 - 4, {
      width: doc.page.width - MARGIN.left - MARGIN.right,
      align: "center",
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
  }
}

/** A BCP 47-looking language tag for the PDF's /Lang (screen readers, hyphenation), else none. */
function pdfLanguage(language: string | null): string | undefined {
  return language && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(language) ? language : undefined;
}

export function renderPdf(unsafeInput: RenderInput): Promise<Uint8Array> {
  const input = xmlSafeInput(unsafeInput);
  const { fonts, header } = input;
  const doc = new PDFDocument({
    size: "A4",
    margins: MARGIN,
    bufferPages: true,
    compress: true,
    // A buffer, not a name: with no default font given pdfkit would load Helvetica's AFM file.
    font: buffer(fonts.regular) as unknown as string,
    lang: pdfLanguage(header.language),
    displayTitle: true,
    info: { Title: header.title, Creator: "Verbatim", Producer: "Verbatim" },
  });

  const chunks: Uint8Array[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    doc.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on("error", reject);
  });
  const layout = new Layout(doc, fonts, registerFaces(doc, fonts));
  drawHeader(layout, header);
  drawBlocks(layout, markdownBlocks(input.markdown), layout.left, layout.width);
  drawPageNumbers(layout);
  doc.end();
  return done;
}

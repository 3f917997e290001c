/**
 * The fonts of PDF renders. DejaVu Sans 2.37 (the dejavu-fonts-ttf package; Bitstream Vera
 * licence, DejaVu's changes in the public domain) is imported `with { type: "file" }`, so
 * `bun build --compile` embeds the files in the executable and the import gives a path Bun.file
 * reads there too: a render never depends on fonts installed on the server. The operator's CJK
 * font (--cjk-font) is read beside them, once per process.
 */
import { readFile } from "node:fs/promises";
import bold from "dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf" with { type: "file" };
import boldItalic from "dejavu-fonts-ttf/ttf/DejaVuSans-BoldOblique.ttf" with { type: "file" };
import italic from "dejavu-fonts-ttf/ttf/DejaVuSans-Oblique.ttf" with { type: "file" };
import regular from "dejavu-fonts-ttf/ttf/DejaVuSans.ttf" with { type: "file" };
import mono from "dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf" with { type: "file" };
import type { DocumentFonts } from "./types.ts";

export type { DocumentFonts } from "./types.ts";

/** Keyed by the CJK font's path ("" for none); a failed load is forgotten so a fixed file is read again. */
const loaded = new Map<string, Promise<DocumentFonts>>();

async function embedded(path: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path).arrayBuffer());
}

/** The operator's CJK font, checked now so a wrong --cjk-font fails with its name, not inside pdfkit. */
async function cjkFont(path: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`--cjk-font (VERBATIM_CJK_FONT): cannot read the CJK font file ${path} (${reason})`);
  }
  if (!fontFace(bytes)) {
    throw new Error(`--cjk-font (VERBATIM_CJK_FONT): ${path} is not a TrueType/OpenType font (.ttf, .otf or .ttc)`);
  }
  return bytes;
}

export function loadDocumentFonts(options: { cjkFontPath?: string | null }): Promise<DocumentFonts> {
  const cjkPath = options.cjkFontPath ?? null;
  const key = cjkPath ?? "";
  let fonts = loaded.get(key);
  if (!fonts) {
    fonts = (async () => {
      const [r, b, i, bi, m, cjk] = await Promise.all([
        embedded(regular),
        embedded(bold),
        embedded(italic),
        embedded(boldItalic),
        embedded(mono),
        cjkPath ? cjkFont(cjkPath) : null,
      ]);
      return { regular: r, bold: b, italic: i, boldItalic: bi, mono: m, cjk };
    })();
    fonts.catch(() => loaded.delete(key));
    loaded.set(key, fonts);
  }
  return fonts;
}

/** A font file's first face: the names a PDF (PostScript name) and a DOCX (family) refer to it by. */
export interface FontFace {
  family: string;
  postscriptName: string;
  /** A .ttc holding several faces: pdfkit must be told which one (by PostScript name). */
  collection: boolean;
}

const TAG = { ttcf: 0x74746366, otto: 0x4f54544f, true: 0x74727565, v1: 0x00010000, name: 0x6e616d65 } as const;

/**
 * The family and PostScript names from the font's `name` table (OpenType spec, "name" table:
 * ID 1 family, ID 6 PostScript name; Windows Unicode records preferred, US English first), or
 * null when the bytes are not a TrueType/OpenType font or collection. A few lines of reading
 * instead of a font library: only these two strings are needed.
 */
export function fontFace(bytes: Uint8Array): FontFace | null {
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let font = 0;
    const collection = view.getUint32(0) === TAG.ttcf;
    if (collection) font = view.getUint32(12); // the first face's offset table
    const version = view.getUint32(font);
    if (version !== TAG.v1 && version !== TAG.otto && version !== TAG.true) return null;
    const tables = view.getUint16(font + 4);
    let name = -1;
    for (let i = 0; i < tables; i++) {
      const record = font + 12 + i * 16;
      if (view.getUint32(record) === TAG.name) name = view.getUint32(record + 8);
    }
    if (name < 0) return null;
    const count = view.getUint16(name + 2);
    const strings = name + view.getUint16(name + 4);
    const found = new Map<number, { rank: number; text: string }>();
    for (let i = 0; i < count; i++) {
      const record = name + 6 + i * 12;
      const [platform, encoding, language, id, length, offset] = [0, 2, 4, 6, 8, 10].map((at) => view.getUint16(record + at)) as [number, number, number, number, number, number];
      if (id !== 1 && id !== 6) continue;
      const raw = bytes.subarray(strings + offset, strings + offset + length);
      let rank: number;
      let text: string;
      if (platform === 3 && (encoding === 1 || encoding === 10)) {
        rank = language === 0x409 ? 0 : 1;
        text = new TextDecoder("utf-16be").decode(raw);
      } else if (platform === 0) {
        rank = 2;
        text = new TextDecoder("utf-16be").decode(raw);
      } else if (platform === 1 && encoding === 0) {
        rank = 3;
        text = new TextDecoder("latin1").decode(raw); // Mac Roman; ASCII names read the same
      } else continue;
      const best = found.get(id);
      if (text && (!best || rank < best.rank)) found.set(id, { rank, text });
    }
    const family = found.get(1)?.text;
    const postscriptName = found.get(6)?.text;
    return family && postscriptName ? { family, postscriptName, collection } : null;
  } catch {
    return null; // a read past the end: truncated or not a font
  }
}

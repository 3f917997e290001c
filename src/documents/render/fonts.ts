/**
 * DejaVu Sans 2.37 (the dejavu-fonts-ttf package; Bitstream Vera licence with DejaVu's changes
 * in the public domain), imported as files so `bun build --compile` embeds them in the executable.
 * Read once per process; the operator's CJK font (--cjk-font) beside them when configured.
 */
import { readFile } from "node:fs/promises";
import bold from "dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf" with { type: "file" };
import boldItalic from "dejavu-fonts-ttf/ttf/DejaVuSans-BoldOblique.ttf" with { type: "file" };
import italic from "dejavu-fonts-ttf/ttf/DejaVuSans-Oblique.ttf" with { type: "file" };
import regular from "dejavu-fonts-ttf/ttf/DejaVuSans.ttf" with { type: "file" };
import mono from "dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf" with { type: "file" };
import type { DocumentFonts } from "./types.ts";

const loaded = new Map<string, Promise<DocumentFonts>>();

async function read(path: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path).arrayBuffer());
}

export function loadDocumentFonts(options: { cjkFontPath: string | null }): Promise<DocumentFonts> {
  const key = options.cjkFontPath ?? "";
  let fonts = loaded.get(key);
  if (!fonts) {
    fonts = (async () => {
      let cjk: Uint8Array | null = null;
      if (options.cjkFontPath) {
        try {
          cjk = new Uint8Array(await readFile(options.cjkFontPath));
        } catch {
          throw new Error("--cjk-font: the CJK font file cannot be read");
        }
      }
      const [r, b, i, bi, m] = await Promise.all([read(regular), read(bold), read(italic), read(boldItalic), read(mono)]);
      return { regular: r, bold: b, italic: i, boldItalic: bi, mono: m, cjk };
    })();
    fonts.catch(() => loaded.delete(key));
    loaded.set(key, fonts);
  }
  return fonts;
}

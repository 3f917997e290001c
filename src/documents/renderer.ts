import { accessSync, constants } from "node:fs";
import type { RenderDocument } from "./render-cache.ts";

/**
 * PDF and DOCX renders with the embedded DejaVu Sans (and the operator's CJK font, if any). The
 * CJK font file is checked at start, so a wrong --cjk-font stops the service with a clear message
 * instead of failing the first render.
 */
export function documentRenderer(options: { cjkFontPath: string | null }): RenderDocument {
  if (options.cjkFontPath) {
    try {
      accessSync(options.cjkFontPath, constants.R_OK);
    } catch {
      throw new Error(`--cjk-font: the font file ${options.cjkFontPath} cannot be read`);
    }
  }
  // Loaded on the first render: pdfkit, docx and the fonts cost start-up time and memory a
  // service that never renders need not pay.
  return async (format, input) => {
    const { loadDocumentFonts } = await import("./render/fonts.ts");
    const fonts = await loadDocumentFonts({ cjkFontPath: options.cjkFontPath });
    if (format === "pdf") return (await import("./render/pdf.ts")).renderPdf({ ...input, fonts });
    return (await import("./render/docx.ts")).renderDocx({ ...input, fonts });
  };
}

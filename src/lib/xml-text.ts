/**
 * Text that an XML 1.0 document can hold, for every renderer of the service's text (DOCX, PDF,
 * HTML pages, Markdown, transcript formats): what a meeting says reaches them from uploads, the
 * language model and clients, and may carry characters XML 1.0 forbids. One such character makes a
 * DOCX that Word refuses to open (the docx package drops only some of them), and they have no place
 * in a PDF, a page or a text file either.
 *
 * - The C0 controls but tab, line feed and carriage return (U+0000–U+0008, U+000B, U+000C,
 *   U+000E–U+001F) and the noncharacters U+FFFE and U+FFFF are removed: they show nothing.
 * - A lone surrogate (half of an astral character, cut off) becomes U+FFFD, the replacement
 *   character, as encoding it to UTF-8 would do anyway: the reader sees that something was lost.
 * Astral characters (emoji, rare CJK) are kept whole.
 */
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlSafeText(text: string): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.replace(XML_FORBIDDEN, "");
}

/** Whether a code point is one of XML 1.0's characters (its Char production). */
function isXmlChar(c: number): boolean {
  return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

// Any number of digits: browsers read leading zeros (&#x0000000001; is U+0001).
const CHARACTER_REFERENCE = /&#(?:[xX]([0-9a-fA-F]+)|([0-9]+));/g;

/**
 * Markup (the report's HTML) that names no character XML forbids, neither raw (xmlSafeText) nor as
 * a character reference such as `&#1;`, which Markdown passes through and a browser would decode:
 * a reference to a surrogate becomes U+FFFD's, one to any other forbidden code point is dropped.
 */
export function xmlSafeMarkup(markup: string): string {
  return xmlSafeText(markup).replace(CHARACTER_REFERENCE, (reference: string, hex: string | undefined, decimal: string | undefined) => {
    const c = hex === undefined ? Number(decimal) : Number.parseInt(hex, 16);
    if (c >= 0xd800 && c <= 0xdfff) return "&#xFFFD;";
    return isXmlChar(c) ? reference : "";
  });
}

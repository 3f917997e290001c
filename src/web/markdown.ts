import { Marked, type Tokens } from "marked";
import { xmlSafeMarkup } from "../lib/xml-text.ts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Markdown written by the model (reports, documents) as HTML for a page. The model read the
 * meeting, and a meeting can say anything: raw HTML is shown as text, links keep only their
 * text, and images only their description, so a report can neither run a script nor load a
 * resource from elsewhere (the CSP would refuse them too).
 */
const marked = new Marked({
  gfm: true,
  renderer: {
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    link(token: Tokens.Link) {
      return this.parser.parseInline(token.tokens);
    },
    image: (token: Tokens.Image) => escapeHtml(token.text),
    // Inside a page whose own headings are h1 (the meeting) and h2 (the section): the report's
    // headings start at h3, so the page's outline stays whole for a screen reader.
    heading(token: Tokens.Heading) {
      const level = Math.min(6, token.depth + 2);
      return `<h${level}>${this.parser.parseInline(token.tokens)}</h${level}>\n`;
    },
  },
});

export function markdownToSafeHtml(markdown: string): string {
  // No character XML forbids, raw or as a reference (lib/xml-text.ts).
  return xmlSafeMarkup(marked.parse(markdown, { async: false }));
}

import { expect, test } from "bun:test";
import { decodeHTML } from "entities";
import { randomUnicode, seededRandom } from "../../test/support/random-unicode.ts";
import { asElementText, xmlErrors } from "../../test/support/strict-xml.ts";
import { markdownToSafeHtml } from "./markdown.ts";

test("Markdown becomes HTML; raw HTML, links and images from the model cannot run or load anything", () => {
  const html = markdownToSafeHtml(
    '# Decisions\n\n- **Budget** approved\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) and ![logo](https://evil.example/x.png) and <b onclick="x()">bold</b>',
  );
  expect(html).toContain("<h3>Decisions</h3>"); // below the page's h1 and the section's h2
  expect(html).toContain("<strong>Budget</strong>");
  expect(html).not.toContain("<script");
  expect(html).toContain("&#60;script&#62;");
  // What remains of the HTML is text on the page, not elements.
  expect(html).not.toMatch(/<img|<a |<b |href=/);
  expect(html).toContain("&#60;img src=x onerror=alert(1)&#62;");
  expect(html).toContain("click");
  expect(html).toContain("logo");
});

test("random Unicode, raw or as character references: the page's text holds no character XML forbids (strict parser)", async () => {
  const seed = Date.now();
  const random = seededRandom(seed);
  const texts: string[] = [];
  for (let i = 0; i < 200; i++) {
    const html = markdownToSafeHtml(`${randomUnicode(random, 40)} &#1; &#x8; &#xFFFE; &#xD800; &#0; &#x0000000001; &#00000000008; &#x110000;`);
    // What a browser shows: tags out, references decoded (as HTML does: &#1; is U+0001 there).
    texts.push(decodeHTML(html.replace(/<[^>]*>/g, "")));
  }
  expect(await xmlErrors(`<pages seed="${seed}">${texts.map((text) => `<p>${asElementText(text)}</p>`).join("\n")}</pages>`)).toBe("");
});

import { expect, test } from "bun:test";
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

import { ERROR_CATALOGUE } from "../errors/catalogue.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Inline `code` spans in catalogue descriptions, after escaping. */
function withCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** The error catalogue as a page, one anchor per code: problem `type` URLs land here. */
export function renderErrorsPage(): string {
  const rows = Object.entries(ERROR_CATALOGUE)
    .sort(([, a], [, b]) => a.status - b.status)
    .map(
      ([code, entry]) => `<section id="${code}">
  <h2><a href="#${code}">${code}</a></h2>
  <p class="status">HTTP ${entry.status} · ${escapeHtml(entry.title)}</p>
  <p>${withCode(entry.description)}</p>
</section>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Verbatim API errors</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
section { border-top: 1px solid #ddd; padding: .5rem 0; }
h2 { font: 600 1.1rem ui-monospace, monospace; margin: .5rem 0 0; }
h2 a { color: inherit; text-decoration: none; }
section:target { background: #fff8d6; }
.status { color: #555; margin: 0; }
code { background: #f2f2f2; padding: 0 .2rem; }
</style>
</head>
<body>
<h1>Verbatim API errors</h1>
<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>,
<code>status</code>, <code>detail</code>, <code>instance</code>, <code>code</code> and <code>request_id</code>.
Its <code>type</code> links to the entry for its <code>code</code> below.</p>
${rows}
</body>
</html>
`;
}

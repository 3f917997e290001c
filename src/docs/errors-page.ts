import { ERROR_CATALOGUE } from "../errors/catalogue.ts";
import { JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Inline `code` spans in catalogue descriptions, after escaping. */
function withCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** Job error codes, one anchor each (#job-<code>: a code can be both a problem and a job error). */
function jobErrorRows(): string {
  return Object.entries(JOB_ERROR_CATALOGUE)
    .map(
      ([code, entry]) => `<section id="job-${code}">
  <h2><a href="#job-${code}">${code}</a></h2>
  <p class="status">${entry.retryable ? "Tried again before the job fails" : "Not tried again"}</p>
  <p>${withCode(entry.description)}</p>
</section>`,
    )
    .join("\n");
}

/** The error catalogue as a page, one anchor per code: problem `type` URLs land here; then the job error codes. */
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
h2.part { font: 600 1.4rem system-ui, sans-serif; margin: 2rem 0 .5rem; }
code { background: #f2f2f2; padding: 0 .2rem; }
</style>
</head>
<body>
<h1>Verbatim API errors</h1>
<nav><a href="#problems">HTTP problems</a> · <a href="#job-errors">Job error codes</a></nav>
<h2 id="problems" class="part">HTTP problems</h2>
<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>,
<code>status</code>, <code>detail</code>, <code>instance</code>, <code>code</code> and <code>request_id</code>.
Its <code>type</code> links to the entry for its <code>code</code> below.</p>
${rows}
<h2 id="job-errors" class="part">Job error codes</h2>
<p>A request that was accepted (202) can still fail later, while its recording is processed. The job then has
<code>status</code> failed and <code>error</code>: <code>{"code", "message"}</code>, also sent in the
<code>transcription.failed</code> and <code>processing.failed</code> events. <code>code</code> is one of these;
<code>message</code> says in a sentence what went wrong with this recording. Codes tried again are retried by the
service itself a few times before the job fails; resubmit the recording to try once more.</p>
${jobErrorRows()}
</body>
</html>
`;
}

// A strict XML 1.0 parser for the tests: xmllint (Debian libxml2-utils, installed by
// scripts/setup.sh). It refuses every character XML forbids, raw or as a character reference,
// bytes that are not UTF-8, and anything else not well-formed. Without it the tests fail and say
// what to install, rather than pass unchecked.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

function xmllint(): string {
  const path = Bun.which("xmllint");
  if (!path) throw new Error("xmllint is missing: install Debian's libxml2-utils (scripts/setup.sh does) to run the strict XML checks");
  return path;
}

/** What xmllint says of one document: "" when it is well-formed, else its errors. */
export async function xmlErrors(xml: string | Uint8Array): Promise<string> {
  const proc = Bun.spawn([xmllint(), "--noout", "--nonet", "-"], { stdin: typeof xml === "string" ? new TextEncoder().encode(xml) : xml, stdout: "pipe", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return code === 0 ? "" : err.trim() || `xmllint exited ${code}`;
}

/** Text as the content of an element: the three characters markup needs escaped, nothing else touched. */
export function asElementText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Every XML part of a DOCX (or any zip of XML), by name, with xmllint's errors ("" when well-formed). */
export async function docxPartErrors(docx: Uint8Array): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), "verbatim-strict-xml-"));
  try {
    writeFileSync(join(dir, "file.docx"), docx);
    const unzip = Bun.spawn(["unzip", "-q", "-o", "file.docx", "-d", "parts"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    if ((await unzip.exited) !== 0) throw new Error(`unzip failed: ${await new Response(unzip.stderr).text()}`);
    const out: Record<string, string> = {};
    const walk = async (folder: string): Promise<void> => {
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) await walk(path);
        else if (/\.(xml|rels)$/.test(name)) out[relative(join(dir, "parts"), path)] = await xmlErrors(await Bun.file(path).bytes());
      }
    };
    await walk(join(dir, "parts"));
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

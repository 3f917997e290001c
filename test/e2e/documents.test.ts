// Document generation with the real engines end to end (issue 10): a French fixture processed by
// ffmpeg, whisper.cpp, sherpa-onnx and llama.cpp, one document spawned from a template asked for
// at creation, one from a free prompt with the transcript, both written by the real local LLM and
// rendered to PDF and DOCX. The shipped LLM is stories260K (../shared/models/README.md): its text
// has no meaning, so what is asserted is the path: a whole document under the grammar, stored,
// served and rendered, never its wording.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const FR_WAV = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const FINAL = new Set(["completed", "failed", "canceled"]);
const scratch = mkdtempSync(join(tmpdir(), "verbatim-e2e-docs-"));
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--rate-limits", "pro=100000", "--parallel-slots", "pro=10"] });
  key = await createUserWithKey(server, "e2e-documents@example.com");
});
afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function finished(jobId: string, timeoutMs = 300_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
    if (FINAL.has(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    await Bun.sleep(200);
  }
}

async function fetchDocument(documentId: string): Promise<any> {
  const response = await server.api(`/api/v1/documents/${documentId}`, { key });
  expect(response.status).toBe(200);
  return response.json();
}

describe("documents written by the real local LLM", () => {
  test("a template asked for at creation and a free prompt with the transcript: whole documents, served in every format", async () => {
    const form = new FormData();
    form.append("file", Bun.file(FR_WAV), "reunion.wav");
    form.append("language", "fr");
    form.append("title", "Réunion de coordination");
    form.append("participants", JSON.stringify([{ name: "Élodie", speaker_labels: ["SPEAKER_00"] }]));
    form.append("document_templates", "tpl_minutes");
    const created = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
    expect(created.status).toBe(202);
    const meeting = (await created.json()) as any;
    const parent = await finished(meeting.job.id);
    expect(parent).toMatchObject({ status: "completed", error: null });
    expect(parent.document_job_ids).toHaveLength(1);

    const fromTemplate = await finished(parent.document_job_ids[0]);
    expect(fromTemplate).toMatchObject({ status: "completed", parent_job_id: parent.id, error: null });

    const requested = await server.api(`/api/v1/meetings/${meeting.id}/documents`, {
      method: "POST",
      key,
      json: { prompt: "Rédige une note de synthèse des décisions.", title: "Note de synthèse", include_transcript: true },
    });
    expect(requested.status).toBe(202);
    const fromPrompt = await finished(((await requested.json()) as any).id);
    expect(fromPrompt).toMatchObject({ status: "completed", error: null });

    const templateDoc = await fetchDocument(fromTemplate.document_id);
    expect(templateDoc).toMatchObject({ template_id: "tpl_minutes", title: "Minutes", language: "fr" });
    const promptDoc = await fetchDocument(fromPrompt.document_id);
    expect(promptDoc).toMatchObject({ template_id: null, title: "Note de synthèse", language: "fr" });
    for (const doc of [templateDoc, promptDoc]) {
      expect(doc.model).toContain("stories260K");
      expect(doc.markdown.trim().length).toBeGreaterThan(0);
      expect(doc.markdown.isWellFormed()).toBe(true);
    }

    // The renders carry the header (document title, participants) whatever the model wrote.
    const pdf = await server.api(`/api/v1/documents/${promptDoc.id}?format=pdf`, { key });
    expect(pdf.status).toBe(200);
    const pdfPath = join(scratch, "note.pdf");
    writeFileSync(pdfPath, new Uint8Array(await pdf.arrayBuffer()));
    const text = Bun.spawnSync(["pdftotext", pdfPath, "-"]).stdout.toString();
    expect(text).toContain("Note de synthèse");
    expect(text).toContain("Élodie");
    const docx = await server.api(`/api/v1/documents/${promptDoc.id}?format=docx`, { key });
    expect(docx.status).toBe(200);
    expect(new Uint8Array(await docx.arrayBuffer()).slice(0, 2)).toEqual(new Uint8Array([0x50, 0x4b])); // a zip
  }, 600_000);
});

// Documents over real HTTP (SPEC 4, Documents; issue 10): generation jobs from a template or a
// prompt, the refusals, documents spawned at meeting creation, the list, the four formats with the
// render cache, and deletion with the meeting. Engines are the test doubles (the real LLM runs in
// test/e2e/documents.test.ts).
import { onPostgres } from "../support/postgres.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { queryRow, queryRows } from "../helpers/query.ts";
import { ROOT, type TestServer, createUserWithKey, endedJob, expectProblem, startServer } from "../helpers/server.ts";
import { asElementText, docxPartErrors, xmlErrors } from "../support/strict-xml.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const FINAL = new Set(["completed", "failed", "canceled"]);
const scratch = mkdtempSync(join(tmpdir(), "verbatim-documents-"));
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({
    // Both plans unthrottled: the persona test polls five jobs of a free account at once.
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "free=100000,pro=100000", "--parallel-slots", "free=1,pro=20"],
    env: { TEST_ENGINE_BEHAVIOR: "" },
  });
  key = await createUserWithKey(server, "writer@example.com");
});
afterAll(async () => {
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function createMeeting(fields: Record<string, string> = {}, as = key): Promise<{ id: string; job: { id: string } }> {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "reunion.wav");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await server.api("/api/v1/meetings", { method: "POST", key: as, body: form });
  expect(response.status).toBe(202);
  return (await response.json()) as any;
}

async function processedMeeting(fields: Record<string, string> = {}, as = key): Promise<string> {
  const meeting = await createMeeting({ language: "fr", ...fields }, as);
  expect((await endedJob(server, as, meeting.job.id)).status).toBe("completed");
  return meeting.id;
}

function requestDocument(meetingId: string, body: unknown, headers: Record<string, string> = {}, as = key) {
  return server.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key: as, json: body, headers });
}

async function generated(meetingId: string, body: unknown): Promise<{ job: any; documentId: string }> {
  const response = await requestDocument(meetingId, body);
  expect(response.status).toBe(202);
  const job = await endedJob(server, key, ((await response.json()) as any).id);
  expect(job.status).toBe("completed");
  return { job, documentId: job.document_id };
}

async function eventsOf(type: string): Promise<any[]> {
  const rows = await queryRows<{ payload: string }>(server, sql`SELECT payload FROM events WHERE type = ${type} ORDER BY created_at`);
  return rows.map((r) => JSON.parse(r.payload));
}

async function runTool(command: string[]): Promise<string> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command[0]} failed: ${err}`);
  return out;
}

describe("POST /v1/meetings/{id}/documents", () => {
  let meetingId: string;
  beforeAll(async () => {
    meetingId = await processedMeeting({ title: "Réunion de coordination", participants: JSON.stringify([{ name: "Élodie Müller", speaker_labels: ["SPEAKER_00"] }]) });
  });

  test("from a template: 202 with a queued document_generation job, then completed with document_id and document.generated", async () => {
    const response = await requestDocument(meetingId, { template_id: "tpl_minutes", metadata: { matter: "A-17" } });
    expect(response.status).toBe(202);
    const queued = (await response.json()) as any;
    expect(queued).toMatchObject({
      object: "job",
      kind: "document_generation",
      status: "queued",
      stage: "queued",
      meeting_id: meetingId,
      document_id: null,
      parent_job_id: null,
      metadata: { matter: "A-17" },
    });
    const job = await endedJob(server, key, queued.id);
    expect(job).toMatchObject({ status: "completed", stage: "done", progress: 1 });
    expect(job.document_id).toMatch(/^doc_\w+$/);
    const event = (await eventsOf("document.generated")).find((e) => e.data.object.id === queued.id);
    expect(event.data.object).toMatchObject({ kind: "document_generation", document_id: job.document_id, metadata: { matter: "A-17" } });
    expect(event.data.object.document).toMatchObject({ id: job.document_id, object: "document", template_id: "tpl_minutes" });
    expect(event.data.object.document.markdown).toBeUndefined();
  });

  test("from a prompt with title, instructions and include_transcript: the writer gets all of it", async () => {
    const { documentId } = await generated(meetingId, {
      prompt: "Rédige une note de synthèse pour le client.",
      title: "Note de synthèse",
      instructions: "Ton formel, vouvoiement.",
      include_transcript: true,
    });
    const doc = (await (await server.api(`/api/v1/documents/${documentId}`, { key })).json()) as any;
    expect(doc).toMatchObject({ id: documentId, object: "document", meeting_id: meetingId, title: "Note de synthèse", template_id: null, language: "fr", model: "double-llm" });
    expect(doc.formats).toEqual(["json", "md", "pdf", "docx"]);
    expect(doc.markdown).toContain("Rédige une note de synthèse pour le client.");
    expect(doc.markdown).toContain("- Consignes : Ton formel, vouvoiement.");
    expect(doc.markdown).toContain("- Participants : Élodie Müller\n");
    expect(doc.markdown).toMatch(/- Lignes de transcription : [1-9]\d*/);
  });

  test("without include_transcript the writer gets no transcript; a template's name is the default title", async () => {
    const { documentId } = await generated(meetingId, { template_id: "tpl_action_plan" });
    const doc = (await (await server.api(`/api/v1/documents/${documentId}`, { key })).json()) as any;
    expect(doc.markdown).toContain("- Lignes de transcription : 0");
    expect(doc.title).toBe("Action plan");
    expect(doc.template_id).toBe("tpl_action_plan");
  });

  test("Idempotency-Key: the replay returns the same job without a second one; another body is 422", async () => {
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await requestDocument(meetingId, { template_id: "tpl_minutes" }, headers);
    expect(first.status).toBe(202);
    const again = await requestDocument(meetingId, { template_id: "tpl_minutes" }, headers);
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).id).toBe(((await first.json()) as any).id);
    await expectProblem(await requestDocument(meetingId, { template_id: "tpl_action_plan" }, headers), 422, "idempotency_key_reused");
  });

  test("bad bodies: both or neither of template_id and prompt, an unknown template, a prompt over 20,000 characters", async () => {
    const both = await expectProblem(await requestDocument(meetingId, { template_id: "tpl_minutes", prompt: "x" }), 400, "validation_error");
    expect(JSON.stringify(both.errors)).toContain("template_or_prompt");
    await expectProblem(await requestDocument(meetingId, {}), 400, "validation_error");
    const unknown = await expectProblem(await requestDocument(meetingId, { template_id: "tpl_nope" }), 400, "validation_error");
    expect(unknown.errors).toEqual([expect.objectContaining({ field: "template_id", code: "unknown_template" })]);
    await expectProblem(await requestDocument(meetingId, { prompt: "x".repeat(20_001) }), 400, "validation_error");
    await expectProblem(await requestDocument(meetingId, { prompt: "ok", colour: "red" }), 400, "validation_error");
  });

  test("409 summary_not_ready for a transcribe_only meeting; 404 for another account's meeting or an unknown one", async () => {
    const transcribed = await processedMeeting({ transcribe_only: "true" });
    await expectProblem(await requestDocument(transcribed, { template_id: "tpl_minutes" }), 409, "summary_not_ready");
    const other = await createUserWithKey(server, "other-writer@example.com");
    await expectProblem(await requestDocument(meetingId, { template_id: "tpl_minutes" }, {}, other), 404, "not_found");
    await expectProblem(await requestDocument(crypto.randomUUID(), { template_id: "tpl_minutes" }), 404, "not_found");
    const readOnly = await createUserWithKey(server, "reader-writer@example.com", "read:meetings,read:documents");
    await expectProblem(await requestDocument(meetingId, { template_id: "tpl_minutes" }, {}, readOnly), 403, "insufficient_scope");
  });

  test("a failed generation fails its job with a code and emits document.failed, leaving no document", async () => {
    const failing = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000"], env: { TEST_ENGINE_BEHAVIOR: "generate:fail" } });
    try {
      const k = await createUserWithKey(failing, "failing@example.com");
      const form = new FormData();
      form.append("file", Bun.file(FIXTURE), "m.wav");
      const meeting = (await (await failing.api("/api/v1/meetings", { method: "POST", key: k, body: form })).json()) as any;
      for (let i = 0; i < 600 && !FINAL.has(((await (await failing.api(`/api/v1/jobs/${meeting.job.id}`, { key: k })).json()) as any).status); i++) await Bun.sleep(50);
      const queued = (await (await failing.api(`/api/v1/meetings/${meeting.id}/documents`, { method: "POST", key: k, json: { prompt: "Un résumé." } })).json()) as any;
      let job: any;
      for (let i = 0; i < 600; i++) {
        job = await (await failing.api(`/api/v1/jobs/${queued.id}`, { key: k })).json();
        if (FINAL.has(job.status)) break;
        await Bun.sleep(50);
      }
      expect(job).toMatchObject({ status: "failed", document_id: null, error: { code: "double_failure" } });
      const failed = await queryRows<{ payload: string }>(failing, sql`SELECT payload FROM events WHERE type = 'document.failed'`);
      expect(failed.map((r) => JSON.parse(r.payload).data.object.id)).toEqual([queued.id]);
      const list = (await (await failing.api(`/api/v1/documents?meeting_id=${meeting.id}`, { key: k })).json()) as any;
      expect(list.data).toEqual([]);
    } finally {
      await failing.stop();
    }
  }, 60_000);
});

describe("processing slots", () => {
  test("429 parallel_processing_limit with Retry-After when the plan's slots are busy; nothing queued", async () => {
    // Its own server, whose transcription takes seconds, so the free plan's one slot stays busy.
    const slow = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "free=100000"], env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=3000" } });
    try {
      const k = await createUserWithKey(slow, "free-writer@example.com", "all", "free");
      const upload = async () => {
        const form = new FormData();
        form.append("file", Bun.file(FIXTURE), "m.wav");
        return (await (await slow.api("/api/v1/meetings", { method: "POST", key: k, body: form })).json()) as any;
      };
      const poll = async (jobId: string) => {
        for (let i = 0; i < 600; i++) {
          const job = (await (await slow.api(`/api/v1/jobs/${jobId}`, { key: k })).json()) as any;
          if (FINAL.has(job.status)) return job;
          await Bun.sleep(50);
        }
      };
      const done = await upload();
      expect((await poll(done.job.id)).status).toBe("completed");
      const busy = await upload();
      const refused = await slow.api(`/api/v1/meetings/${done.id}/documents`, { method: "POST", key: k, json: { template_id: "tpl_minutes" } });
      await expectProblem(refused, 429, "parallel_processing_limit");
      expect(refused.headers.get("retry-after")).toBe("30");
      expect(((await (await slow.api("/api/v1/jobs?kind=document_generation", { key: k })).json()) as any).data).toEqual([]);
      await poll(busy.job.id);
      const accepted = await slow.api(`/api/v1/meetings/${done.id}/documents`, { method: "POST", key: k, json: { template_id: "tpl_minutes" } });
      expect(accepted.status).toBe(202);
    } finally {
      await slow.stop();
    }
  }, 60_000);
});

describe("documents requested at meeting creation", () => {
  test("document_templates: generated after the report, with parent_job_id, listed in document_job_ids and processing.completed", async () => {
    const meeting = await createMeeting({ document_templates: "tpl_minutes,tpl_action_plan" });
    const parent = await endedJob(server, key, meeting.job.id);
    expect(parent.document_job_ids).toHaveLength(2);
    const children = await Promise.all(parent.document_job_ids.map((id: string) => endedJob(server, key, id)));
    for (const child of children) expect(child).toMatchObject({ kind: "document_generation", status: "completed", parent_job_id: parent.id, meeting_id: meeting.id });
    const completed = (await eventsOf("processing.completed")).find((e) => e.data.object.id === parent.id);
    expect(completed.data.object.document_job_ids).toEqual(parent.document_job_ids);
    const full = (await (await server.api(`/api/v1/meetings/${meeting.id}`, { key })).json()) as any;
    expect(full.documents.map((d: any) => d.template_id).sort()).toEqual(["tpl_action_plan", "tpl_minutes"]);
    expect(full.documents[0].markdown).toBeUndefined();
  });

  test("persona: its templates (at most 5), spawned without a free slot on a one-slot plan", async () => {
    const freeKey = await createUserWithKey(server, "persona@example.com", "all", "free");
    const meeting = await createMeeting({ persona: "lawyer" }, freeKey);
    const parent = await endedJob(server, freeKey, meeting.job.id);
    const templates = (await (await server.api("/api/v1/templates?persona=lawyer", { key })).json()) as any;
    expect(parent.document_job_ids).toHaveLength(Math.min(5, templates.data.length));
    const children = await Promise.all(parent.document_job_ids.map((id: string) => endedJob(server, freeKey, id)));
    expect(children.map((c) => c.status)).toEqual(children.map(() => "completed"));
  });

  test("transcribe_only meetings spawn no documents", async () => {
    const meeting = await createMeeting({ transcribe_only: "true", document_templates: "tpl_minutes" });
    const parent = await endedJob(server, key, meeting.job.id);
    expect(parent.document_job_ids).toBeNull();
  });
});

describe("GET /v1/documents and /v1/documents/{id}", () => {
  let meetingId: string;
  let documentId: string;
  beforeAll(async () => {
    meetingId = await processedMeeting({
      title: "Réunion de coordination — décisions prises",
      participants: JSON.stringify([{ name: "Élodie", speaker_labels: ["SPEAKER_00"] }, { name: "Łukasz Żółć" }]),
    });
    documentId = (await generated(meetingId, { prompt: "Synthèse des décisions.", title: "Synthèse — œuvre de l'équipe" })).documentId;
  });

  test("the list: most recent first, meeting_id filter, pagination without duplicates, no Markdown", async () => {
    await generated(meetingId, { template_id: "tpl_minutes" });
    await generated(meetingId, { template_id: "tpl_action_plan" });
    const first = (await (await server.api(`/api/v1/documents?meeting_id=${meetingId}&limit=2`, { key })).json()) as any;
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = (await (await server.api(`/api/v1/documents?meeting_id=${meetingId}&limit=2&cursor=${first.next_cursor}`, { key })).json()) as any;
    const all = [...first.data, ...second.data];
    expect(all).toHaveLength(3);
    expect(new Set(all.map((d: any) => d.id)).size).toBe(3);
    expect(all.at(-1).id).toBe(documentId);
    expect(all.map((d) => d.created_at)).toEqual([...all.map((d) => d.created_at)].sort().reverse());
    for (const d of all) expect(d.markdown).toBeUndefined();
    const other = await createUserWithKey(server, "lister@example.com");
    expect(((await (await server.api("/api/v1/documents", { key: other })).json()) as any).data).toEqual([]);
  });

  test("404 for another account's document; 403 without read:documents; 400 for an unknown format", async () => {
    const other = await createUserWithKey(server, "peeker@example.com");
    await expectProblem(await server.api(`/api/v1/documents/${documentId}`, { key: other }), 404, "not_found");
    const noScope = await createUserWithKey(server, "noscope@example.com", "read:meetings");
    await expectProblem(await server.api(`/api/v1/documents/${documentId}`, { key: noScope }), 403, "insufficient_scope");
    await expectProblem(await server.api(`/api/v1/documents/${documentId}?format=html`, { key }), 400, "validation_error");
  });

  test("md: the Markdown itself", async () => {
    const response = await server.api(`/api/v1/documents/${documentId}?format=md`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await response.text()).toStartWith("# Synthèse — œuvre de l'équipe\n");
  });

  test("pdf: headings, table and the header's title and participants, accents intact (pdftotext); the second request is a cache hit", async () => {
    const response = await server.api(`/api/v1/documents/${documentId}?format=pdf`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("x-render-cache")).toBe("miss");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const path = join(scratch, "doc.pdf");
    writeFileSync(path, bytes);
    const text = await runTool(["pdftotext", "-layout", path, "-"]);
    for (const expected of ["Synthèse — œuvre de l'équipe", "Élodie", "Łukasz Żółć", "Tâche", "Éléments", "Réunion", "décisions"]) expect(text).toContain(expected);

    const again = await server.api(`/api/v1/documents/${documentId}?format=pdf`, { key });
    expect(again.headers.get("x-render-cache")).toBe("hit");
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
  });

  test("docx: the same text in word/document.xml, headings styled; then served from the cache", async () => {
    const response = await server.api(`/api/v1/documents/${documentId}?format=docx`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    const path = join(scratch, "doc.docx");
    writeFileSync(path, new Uint8Array(await response.arrayBuffer()));
    const xml = await runTool(["unzip", "-p", path, "word/document.xml"]);
    const text = xml
      .replace(/<[^>]+>/g, " ")
      .replace(/&apos;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    for (const expected of ["Synthèse — œuvre de l'équipe", "Élodie", "Łukasz Żółć", "Tâche", "Éléments", "décisions"]) expect(text).toContain(expected);
    expect(xml).toMatch(/w:pStyle w:val="Heading\d"/);
    expect((await server.api(`/api/v1/documents/${documentId}?format=docx`, { key })).headers.get("x-render-cache")).toBe("hit");
  });

  test("a renamed meeting gets a fresh render with its new title in the header", async () => {
    const patched = await server.api(`/api/v1/meetings/${meetingId}`, { method: "PATCH", key, json: { title: "Comité stratégique" } });
    expect(patched.status).toBe(200);
    const response = await server.api(`/api/v1/documents/${documentId}?format=pdf`, { key });
    expect(response.headers.get("x-render-cache")).toBe("miss");
    const path = join(scratch, "renamed.pdf");
    writeFileSync(path, new Uint8Array(await response.arrayBuffer()));
    expect(await runTool(["pdftotext", path, "-"])).toContain("Comité stratégique");
    const renders = readdirSync(join(server.dataDir, "meetings", meetingId, "documents")).filter((n) => n.startsWith(documentId) && n.endsWith(".pdf"));
    expect(renders).toHaveLength(1);
  });

  test("deleting the meeting deletes its documents, their requests and cached renders", async () => {
    const cacheDir = join(server.dataDir, "meetings", meetingId, "documents");
    expect(existsSync(cacheDir)).toBe(true);
    expect((await server.api(`/api/v1/meetings/${meetingId}`, { method: "DELETE", key })).status).toBe(204);
    await expectProblem(await server.api(`/api/v1/documents/${documentId}`, { key }), 404, "not_found");
    expect(((await (await server.api(`/api/v1/documents?meeting_id=${meetingId}`, { key })).json()) as any).data).toEqual([]);
    expect(existsSync(cacheDir)).toBe(false);
    expect(await queryRow(server, sql`SELECT count(*) AS n FROM documents WHERE meeting_id = ${meetingId}`)).toEqual({ n: 0 });
    expect(await queryRow(server, sql`SELECT count(*) AS n FROM document_requests WHERE meeting_id = ${meetingId}`)).toEqual({ n: 0 });
  });
});

describe("characters XML forbids in a meeting and its document (issue 20, item 7)", () => {
  // U+0001 and U+0008 (which the docx package lets through), NUL, U+FFFE, a lone surrogate. NUL only
  // on SQLite: PostgreSQL's text cannot hold it, so there it is a 400 (test/api/errors.test.ts).
  const CONTROLS = onPostgres ? "\u0001\u0008\uFFFE\uD800" : "\u0001\u0008\u0000\uFFFE\uD800";
  let meetingId: string;
  let documentId: string;
  beforeAll(async () => {
    meetingId = await processedMeeting({
      title: `Réunion ${CONTROLS} de suivi`,
      participants: JSON.stringify([{ name: `Élodie ${CONTROLS}`, speaker_labels: ["SPEAKER_00"] }]),
    });
    const corrected = await server.api(`/api/v1/meetings/${meetingId}/transcript/segments/0`, { method: "PATCH", key, json: { text: `mots ${CONTROLS} corrigés` } });
    expect(corrected.status).toBe(200);
    documentId = (await generated(meetingId, { prompt: `Synthèse ${CONTROLS}.`, title: `Note ${CONTROLS} finale`, instructions: `ton ${CONTROLS} formel` })).documentId;
  });

  test("GET ?format=docx: word/document.xml, docProps/core.xml and every other part pass a strict XML parser", async () => {
    const response = await server.api(`/api/v1/documents/${documentId}?format=docx`, { key });
    expect(response.status).toBe(200);
    const parts = await docxPartErrors(new Uint8Array(await response.arrayBuffer()));
    expect(parts["word/document.xml"]).toBe("");
    expect(parts["docProps/core.xml"]).toBe("");
    expect(Object.entries(parts).filter(([, errors]) => errors)).toEqual([]);
  });

  test("the PDF's title, the document's Markdown, the transcript's formats and the export hold only XML characters", async () => {
    const pdf = join(scratch, "controls.pdf");
    writeFileSync(pdf, new Uint8Array(await (await server.api(`/api/v1/documents/${documentId}?format=pdf`, { key })).arrayBuffer()));
    const texts: Record<string, string> = {
      pdfTitle: (await runTool(["pdfinfo", "-enc", "UTF-8", pdf])).match(/^Title:\s*(.*)$/m)?.[1] ?? "",
      pdfText: await runTool(["pdftotext", "-nopgbrk", "-enc", "UTF-8", pdf, "-"]),
      md: await (await server.api(`/api/v1/documents/${documentId}?format=md`, { key })).text(),
      export: await (await server.api(`/api/v1/meetings/${meetingId}/export?format=md`, { key })).text(),
    };
    for (const format of ["md", "txt", "srt", "vtt"]) {
      texts[`transcript-${format}`] = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=${format}`, { key })).text();
    }
    expect(texts.pdfTitle).toContain("Note");
    expect(texts.md).toContain("ton");
    expect(texts["transcript-txt"]).toContain("corrigés");
    const xml = `<texts>${Object.entries(texts).map(([name, text]) => `<${name}>${asElementText(text)}</${name}>`).join("\n")}</texts>`;
    expect(await xmlErrors(xml)).toBe("");
  });
});

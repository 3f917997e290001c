import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import type { Elysia } from "elysia";
import { documentFile, type DocumentFileFormat } from "../documents/file.ts";
import { requestDocument } from "../documents/request.ts";
import { documentRequestBody } from "../documents/schema.ts";
import { ApiError } from "../errors/api-error.ts";
import { buildExportBundle, exportMarkdown } from "../exports/bundle.ts";
import { admitBeforeUpload } from "../usage/admit.ts";
import { createMeeting } from "../meetings/create.ts";
import { deleteMeeting } from "../meetings/delete.ts";
import { assertDiskAdmitsRecordings } from "../meetings/disk-admission.ts";
import { loadOwnedExportInput } from "../meetings/export-input.ts";
import { listParticipants, patchMeeting } from "../meetings/patch.ts";
import { pendingDocumentCount, processingState, reportBeingRewritten } from "../meetings/progress.ts";
import { correctedSegments, correctSegment } from "../meetings/corrections.ts";
import { draftPartsSummary } from "../meetings/drafts.ts";
import { draftDeletionTime } from "../meetings/draft-upkeep.ts";
import { regenerateReport } from "../meetings/regenerate-report.ts";
import { discardReceived, receiveMeeting } from "../meetings/receive.ts";
import { getOwnedMeetingRow, renderMeeting } from "../meetings/render.ts";
import { createMeetingUpload, patchMeetingBody } from "../meetings/schema.ts";
import { createTextMeeting } from "../meetings/text-source.ts";
import { MAX_TEXT_TRANSCRIPT_BYTES } from "../meetings/text-transcript.ts";
import { readBounded } from "../http/body.ts";
import { parseOrThrow } from "../http/validation.ts";
import { speakerNamesPatch } from "../meetings/speaker-names.ts";
import { loadOwnedTranscript, loadTranscript } from "../meetings/transcript.ts";
import { loadOwnedReport } from "../meetings/report.ts";
import { recordingPath, uploadsTmpDir } from "../storage/paths.ts";
import { isTranscriptFormat, renderTranscript } from "../transcripts/render.ts";
import { download, html, redirect, respond } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { PageRefusal } from "./kit.ts";
import { markdownToSafeHtml } from "./markdown.ts";
import { sniffAudioType } from "./media/audio-type.ts";
import { parseByteRange } from "./media/byte-range.ts";
import { MeetingPage, playerTime } from "./pages/meeting.tsx";
import { SegmentEditPage } from "./pages/segment-edit.tsx";
import { UploadPage } from "./pages/upload.tsx";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Flash notices after a form, carried in the redirect's query string as a known key, never as text. */
const NOTICES = ["saved", "speakers", "document", "uploaded", "corrected", "regenerating"];

/** The meeting pages: the meeting itself, its recording for the player, its downloads and forms. */
export function meetingPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;

  /** One of the signed-in user's meetings; any other id (another account's, or none) is the 404 page. */
  const ownedMeeting = (userId: string, id: string) => {
    const row = UUID.test(id) ? getOwnedMeetingRow(deps.db, userId, id.toLowerCase()) : undefined;
    if (!row) throw new PageRefusal(404, "");
    return row;
  };

  const meetingPage = (request: Request, id: string, status = 200, refusal?: string) => {
    const session = kit.requireSession(request);
    const row = ownedMeeting(session.user.id, id);
    const meeting = renderMeeting(deps.db, row, deps.publicApiUrl());
    const frame = kit.frameFor(request, session, () => meeting.title);
    let transcript = null;
    try {
      transcript = meeting.has_transcript ? loadTranscript(deps.db, row.id) : null;
    } catch {
      transcript = null;
    }
    const { rows, unattributed } = listParticipants(deps.db, row.id);
    const speakers = [
      ...rows.flatMap((p) => (JSON.parse(p.speakerLabels) as string[]).map((label) => ({ label, name: p.name }))),
      ...unattributed.map((label) => ({ label, name: "" })),
    ].sort((a, b) => a.label.localeCompare(b.label));
    const notice = refusal ? { text: refusal, error: true } : kit.noticeOf(request, frame.t, NOTICES);
    return html(
      <MeetingPage
        frame={frame}
        meeting={meeting}
        transcript={transcript}
        speakers={speakers}
        templates={deps.templates.templates.map((t) => ({ id: t.id, name: t.name }))}
        reportHtml={meeting.summary ? markdownToSafeHtml(meeting.summary.markdown) : null}
        hasRecording={existsSync(recordingPath(deps.dataDir, row.id))}
        pendingDocuments={pendingDocumentCount(deps.db, row.id)}
        rewritingReport={reportBeingRewritten(deps.db, row.id)}
        corrected={correctedSegments(deps.db, row.id)}
        draft={row.status === "draft" ? { ...draftPartsSummary(deps.db, row.id), deletesAt: draftDeletionTime(row.updatedAt, deps.drafts) } : undefined}
        notice={notice}
      />,
      status,
    );
  };

  /** A form's refusal (a field the services reject) shown on the meeting page, with what was wrong. */
  const refusedOnPage = (request: Request, id: string, error: unknown) => {
    if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
    const fields = error.errors?.map((f) => `${f.field}: ${f.message}`).join("; ");
    return meetingPage(request, id, error.status, fields ? `${error.message} ${fields}` : error.message);
  };

  app
    .get("/meetings/new", ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("upload.title"));
      return html(<UploadPage frame={frame} maxBytes={deps.maxUploadBytes} />);
    })
    .post("/meetings/new", async ({ request }) => {
      // A multipart body: the CSRF token comes in the query string (not logged) or a header.
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, new URL(request.url).searchParams.get("_csrf") ?? undefined);
      const account = kit.account(session);
      assertDiskAdmitsRecordings(deps.dataDir, deps.minFreeDisk);
      let release: (() => void) | undefined;
      try {
        const { parsed } = await receiveMeeting(request, {
          tmpDir: uploadsTmpDir(deps.dataDir),
          egress: deps.egress,
          maxUploadBytes: deps.maxUploadBytes,
          templates: { has: (id) => deps.templates.get(id) !== undefined, hasPersona: (id) => deps.templates.personas.some((p) => p.id === id) },
          dropEmptyFields: true,
          owner: { db: deps.db, userId: account.userId },
          // Once the form's fields are valid, before its file: fail fast before a long upload; checked
          // again when creating. The web app's usage never draws on the API allowance, so there is
          // no balance check.
          admit: () => {
            admitBeforeUpload(deps.db, deps, { account, channel: "webapp" }, deps.clock.now());
            release = deps.uploads.acquire(account.userId, deps.slots[account.plan] ?? 1);
          },
        });
        if (parsed.recording.kind !== "upload") {
          discardReceived(parsed);
          throw new PageRefusal(400, kit.frameFor(request, session, (t) => t("upload.title")).t("upload.fileRequired"));
        }
        try {
          const { meetingId } = await createMeeting(deps, account, parsed.fields, parsed.recording, undefined, "webapp");
          deps.scheduler.wake();
          return redirect(`/meetings/${meetingId}`);
        } catch (error) {
          discardReceived(parsed);
          throw error;
        }
      } finally {
        release?.();
      }
    })
    .post("/meetings/text", async ({ request }) => {
      const session = kit.requireSession(request);
      // A pasted or uploaded transcript: up to 1 MB of text, with the form's other fields.
      const bytes = await readBounded(request, MAX_TEXT_TRANSCRIPT_BYTES + 64 * 1024);
      const form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData().catch(() => new FormData());
      kit.assertCsrf(request, session, String(form.get("_csrf") ?? ""));
      const file = form.get("text_file");
      const text = file instanceof Blob && file.size > 0 ? await file.text() : String(form.get("text") ?? "");
      const field = (name: string) => (typeof form.get(name) === "string" && String(form.get(name)).trim()) || undefined;
      const fields = parseOrThrow(createMeetingUpload, { title: field("title"), language: field("language") });
      const id = createTextMeeting(deps, kit.account(session), fields, text, "webapp");
      deps.scheduler.wake();
      return redirect(`/meetings/${id}`);
    })
    .get("/meetings/:id", ({ request, params }) => meetingPage(request, params.id))
    .get("/meetings/:id/progress", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = ownedMeeting(session.user.id, params.id);
      const job = processingState(deps.db, row.id);
      const frame = kit.frameFor(request, session, () => "");
      const body = {
        status: row.status,
        status_text: frame.t(`status.${row.status}`),
        stage: job?.stage ?? null,
        stage_text: job?.stage ? frame.t(`stage.${job.stage}` as never) : null,
        progress: job?.progress ?? null,
        pending_documents: pendingDocumentCount(deps.db, row.id),
        rewriting_report: reportBeingRewritten(deps.db, row.id),
      };
      return respond(JSON.stringify(body), 200, { "content-type": "application/json", "cache-control": "no-store" });
    })
    .get("/meetings/:id/audio", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = ownedMeeting(session.user.id, params.id);
      const path = recordingPath(deps.dataDir, row.id);
      if (!existsSync(path)) throw new PageRefusal(404, "");
      return audioResponse(request, path);
    })
    .get("/meetings/:id/transcript/:format", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = ownedMeeting(session.user.id, params.id);
      if (!isTranscriptFormat(params.format)) throw new PageRefusal(404, "");
      const { transcript, meta } = loadOwnedTranscript(deps.db, session.user.id, row.id);
      const rendered = renderTranscript(transcript, params.format, meta);
      return download(rendered.body, rendered.contentType, `transcript-${row.id}.${rendered.fileExtension}`);
    })
    .get("/meetings/:id/report/md", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = ownedMeeting(session.user.id, params.id);
      const report = loadOwnedReport(deps.db, session.user.id, row.id);
      return download(report.markdown, "text/markdown; charset=utf-8", `report-${row.id}.md`);
    })
    .get("/meetings/:id/export/md", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = ownedMeeting(session.user.id, params.id);
      const bundle = buildExportBundle(loadOwnedExportInput(deps.db, session.user.id, row.id), {
        language: kit.frameFor(request, session, () => "").locale,
        maxTokens: 200_000,
      });
      return download(exportMarkdown(bundle), "text/markdown; charset=utf-8", `export-${row.id}.md`, "inline");
    })
    .get("/meetings/:id/documents/:documentId/:format", async ({ request, params }) => {
      const session = kit.requireSession(request);
      ownedMeeting(session.user.id, params.id);
      if (!["md", "pdf", "docx"].includes(params.format)) throw new PageRefusal(404, "");
      const file = await documentFile(deps, session.user.id, params.documentId, params.format as DocumentFileFormat);
      return download(file.body as BodyInit, file.contentType, file.fileName);
    })
    .post("/meetings/:id/details", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = ownedMeeting(session.user.id, params.id);
      const client = (form.get("client") ?? "").trim();
      const tags = (form.get("tags") ?? "")
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean);
      try {
        const patch = parseOrThrow(patchMeetingBody, { title: form.get("title") ?? undefined, tags, client: client ? { name: client } : null });
        patchMeeting(deps.db, deps.clock, session.user.id, row.id, patch);
      } catch (error) {
        return refusedOnPage(request, row.id, error);
      }
      return redirect(`/meetings/${row.id}?notice=saved`);
    })
    .post("/meetings/:id/speakers", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = ownedMeeting(session.user.id, params.id);
      const names = new Map<string, string>();
      for (const [field, value] of form) {
        const label = /^speaker\.(SPEAKER_\d{2,3})$/.exec(field)?.[1];
        if (label) names.set(label, value.slice(0, 200));
      }
      const { rows } = listParticipants(deps.db, row.id);
      try {
        patchMeeting(deps.db, deps.clock, session.user.id, row.id, { participants: speakerNamesPatch(rows, names) });
      } catch (error) {
        return refusedOnPage(request, row.id, error);
      }
      return redirect(`/meetings/${row.id}?notice=speakers`);
    })
    .post("/meetings/:id/documents", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = ownedMeeting(session.user.id, params.id);
      const templateId = form.get("template_id") || undefined;
      const prompt = form.get("prompt")?.trim() || undefined;
      try {
        const asked = parseOrThrow(documentRequestBody, {
          ...(templateId ? { template_id: templateId } : { prompt }),
          include_transcript: form.get("include_transcript") === "true",
        });
        requestDocument(deps, kit.account(session), row.id, asked, undefined, "webapp");
      } catch (error) {
        return refusedOnPage(request, row.id, error);
      }
      deps.scheduler.wake();
      return redirect(`/meetings/${row.id}?notice=document`);
    })
    .get("/meetings/:id/segments/:index/edit", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = ownedMeeting(session.user.id, params.id);
      const { transcript } = loadOwnedTranscript(deps.db, session.user.id, row.id);
      const index = /^\d{1,7}$/.test(params.index) ? Number(params.index) : -1;
      const segment = transcript.segments[index];
      if (!segment) throw new PageRefusal(404, "");
      const frame = kit.frameFor(request, session, (t) => t("meeting.correctLine", { time: playerTime(segment.start) }));
      return html(<SegmentEditPage frame={frame} meetingId={row.id} index={index} start={segment.start} speaker={segment.speaker_name ?? segment.speaker} text={segment.text} />);
    })
    .post("/meetings/:id/segments/:index", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = ownedMeeting(session.user.id, params.id);
      const index = /^\d{1,7}$/.test(params.index) ? Number(params.index) : -1;
      const saved = correctSegment(deps.db, deps.clock, session.user.id, row.id, index, form.get("text") ?? "");
      // The inline editor asks for JSON; a form without JavaScript goes back to the line.
      if ((request.headers.get("accept") ?? "").includes("application/json")) {
        return respond(JSON.stringify(saved), 200, { "content-type": "application/json", "cache-control": "no-store" });
      }
      return redirect(`/meetings/${row.id}?notice=corrected#seg-${index}`);
    })
    .post("/meetings/:id/report/regenerate", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const row = ownedMeeting(session.user.id, params.id);
      try {
        regenerateReport(deps, kit.account(session), row.id, "webapp");
      } catch (error) {
        return refusedOnPage(request, row.id, error);
      }
      deps.scheduler.wake();
      return redirect(`/meetings/${row.id}?notice=regenerating`);
    })
    .post("/meetings/:id/delete", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = ownedMeeting(session.user.id, params.id);
      if (form.get("confirm") !== "yes") return meetingPage(request, row.id, 400, kit.frameFor(request, session, () => "").t("meeting.deleteConfirmMissing"));
      deleteMeeting({ db: deps.db, dataDir: deps.dataDir, wal: deps.wal, cancelJobs: (ids) => deps.scheduler.cancel(ids) }, session.user.id, row.id);
      return redirect("/meetings?notice=deleted");
    });
}

/** The first bytes of a file, enough to tell its container. */
function headOf(path: string): Uint8Array {
  const head = new Uint8Array(16);
  const fd = openSync(path, "r");
  try {
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** The recording for the player, whole or one byte range (206): browsers seek with Range requests. */
function audioResponse(request: Request, path: string): Response {
  const size = statSync(path).size;
  const headers: Record<string, string> = { "accept-ranges": "bytes", "cache-control": "private, no-store", "content-type": sniffAudioType(headOf(path)) };
  const range = parseByteRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") return respond(null, 416, { ...headers, "content-range": `bytes */${size}` });
  const file = Bun.file(path);
  if (range === null) return respond(file, 200, headers);
  return respond(file.slice(range.start, range.end + 1), 206, { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}` });
}

import type { Elysia } from "elysia";
import { isDocumentFileFormat } from "../../documents/app.ts";
import { isTranscriptFormat } from "../../transcripts/app.ts";
import { meetingFileName } from "../file-names.ts";
import { download } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { localTemplate } from "./documents.ts";
import type { MeetingPageKit } from "./page.tsx";

/**
 * What a meeting page offers to save: the transcript in each format, the report, the export, the
 * documents. Each is named from the meeting's date and title and what it is, in the person's
 * language ("2026-11-25 Board meeting – AI report.md"; file-names.ts).
 */
export function downloadRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  const { apps } = kit.deps;
  const words = (request: Request, session: ReturnType<WebKit["requireSession"]>) => kit.frameFor(request, session, () => "").t;
  app
    .get("/meetings/:id/transcript/:format", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { row, actor } = await pages.meetingFor(session, params.id);
      if (!isTranscriptFormat(params.format)) throw new PageRefusal(404, "");
      const file = await apps.transcripts.file(actor, row.id, params.format);
      return download(file.body, file.contentType, meetingFileName(row, params.format, words(request, session)("docs.file.transcript")));
    })
    .get("/meetings/:id/report/md", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { row, actor } = await pages.meetingFor(session, params.id);
      const file = await apps.reports.markdownFile(actor, row.id);
      return download(file.body, file.contentType, meetingFileName(row, "md", words(request, session)("docs.file.report")));
    })
    .get("/meetings/:id/export/md", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { row, actor } = await pages.meetingFor(session, params.id);
      const file = await apps.exports.markdownFile(actor, row.id, {
        language: kit.frameFor(request, session, () => "").locale,
        maxTokens: 200_000,
      });
      return download(file.body, file.contentType, meetingFileName(row, "md", words(request, session)("docs.file.export")), "inline");
    })
    .get("/meetings/:id/documents/:documentId/:format", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { row, actor, access } = await pages.meetingFor(session, params.id);
      if (!isDocumentFileFormat(params.format)) throw new PageRefusal(404, "");
      // A colleague reads the documents of the meeting shared with them, never another of the owner's.
      if (access !== "owner") {
        const { data } = await apps.documents.list(actor, { limit: 100, meeting_id: row.id });
        if (!data.some((doc) => doc.id === params.documentId)) throw new PageRefusal(404, "");
      }
      const file = await apps.documents.file(actor, params.documentId, params.format);
      // Written from a template under its name: the name in the person's language, as the page shows it.
      const template = file.templateId ? await apps.templates.get(file.templateId).catch(() => null) : null;
      const locale = kit.frameFor(request, session, () => "").locale;
      const title = template && template.name === file.title ? localTemplate(template, locale).name : file.title;
      return download(file.body as BodyInit, file.contentType, meetingFileName(row, params.format, title));
    });
}

import { existsSync } from "node:fs";
import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { listParticipants } from "../../meetings/patch.ts";
import { pendingDocumentCount, processingState, reportBeingRewritten } from "../../meetings/progress.ts";
import { correctedSegments } from "../../meetings/corrections.ts";
import { draftPartsSummary } from "../../meetings/drafts.ts";
import { draftDeletionTime } from "../../meetings/draft-upkeep.ts";
import { getOwnedMeetingRow, renderMeeting } from "../../meetings/render.ts";
import { isUuid } from "../../lib/ids.ts";
import { recordingPath } from "../../storage/paths.ts";
import { html, json } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { markdownToSafeHtml } from "../markdown.ts";
import { MeetingPage } from "../pages/meeting.tsx";

/** Flash notices after a form, carried in the redirect's query string as a known key, never as text. */
const NOTICES = ["saved", "speakers", "document", "uploaded", "corrected", "regenerating"];

export type MeetingPageKit = ReturnType<typeof meetingPageKit>;

/**
 * What every meeting route shares: the signed-in user's meeting (any other id is the 404 page),
 * the meeting page itself, and a form's refusal shown on it.
 */
export function meetingPageKit(kit: WebKit) {
  const { deps } = kit;

  /** One of the signed-in user's meetings; any other id (another account's, or none) is the 404 page. */
  const ownedMeeting = (userId: string, id: string) => {
    const row = isUuid(id) ? getOwnedMeetingRow(deps.db, userId, id.toLowerCase()) : undefined;
    if (!row) throw new PageRefusal(404, "");
    return row;
  };

  const meetingPage = async (request: Request, id: string, status = 200, refusal?: string) => {
    const session = kit.requireSession(request);
    const row = ownedMeeting(session.user.id, id);
    const meeting = renderMeeting(deps.db, row, deps.publicApiUrl());
    const frame = kit.frameFor(request, session, () => meeting.title);
    const transcript = meeting.has_transcript ? await deps.apps.transcripts.get(kit.actor(session), row.id).then((owned) => owned.transcript, () => null) : null;
    const { rows, unattributed } = listParticipants(deps.db, row.id);
    const speakers = [
      ...rows.flatMap((p) => p.speakerLabels.map((label) => ({ label, name: p.name }))),
      ...unattributed.map((label) => ({ label, name: "" })),
    ].sort((a, b) => a.label.localeCompare(b.label));
    const notice = refusal ? { text: refusal, error: true } : kit.noticeOf(request, frame.t, NOTICES);
    const templates = await deps.apps.templates.list();
    return html(
      <MeetingPage
        frame={frame}
        meeting={meeting}
        transcript={transcript}
        speakers={speakers}
        templates={templates.map((t) => ({ id: t.id, name: t.name }))}
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

  return { ownedMeeting, meetingPage, refusedOnPage };
}

/** The meeting page and the progress its script polls while the meeting is processed. */
export function meetingPageRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  const { deps } = kit;
  app
    .get("/meetings/:id", ({ request, params }) => pages.meetingPage(request, params.id))
    .get("/meetings/:id/progress", ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = pages.ownedMeeting(session.user.id, params.id);
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
      return json(body);
    });
}

import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { isUuid } from "../../lib/ids.ts";
import type { MeetingRow } from "../../meetings/app.ts";
import { html, json } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { markdownToSafeHtml } from "../markdown.ts";
import { MeetingPage } from "../pages/meeting.tsx";
import type { TranscriptSegment } from "../../transcripts/app.ts";
import type { LineCorrection, WorkspaceProps } from "./workspace.tsx";

/** Flash notices after a form, carried in the redirect's query string as a known key, never as text. */
const NOTICES = ["saved", "speakers", "document", "uploaded", "corrected", "regenerating", "held", "released", "undone"];

export type MeetingPageKit = ReturnType<typeof meetingPageKit>;

/** A signed-in user's session, as the kit reads it. */
type Session = ReturnType<WebKit["requireSession"]>;

/** Any other account's meeting, or none, is the 404 page (not the API's refusal). */
const asPageRefusal = (error: unknown): never => {
  if (error instanceof ApiError && error.status === 404) throw new PageRefusal(404, "");
  throw error;
};

/**
 * What every meeting route shares: the signed-in user's meeting (any other id is the 404 page),
 * the meeting page itself, and a form's refusal shown on it.
 */
export function meetingPageKit(kit: WebKit) {
  const { meetings } = kit.deps.apps;

  /** One of the signed-in user's meetings; any other id (another account's, or none) is the 404 page. */
  const ownedMeeting = async (session: Session, id: string): Promise<MeetingRow> => {
    if (!isUuid(id)) throw new PageRefusal(404, "");
    return meetings.row(kit.actor(session), id.toLowerCase()).catch(asPageRefusal);
  };

  const meetingPage = async (request: Request, id: string, status = 200, refusal?: string) => {
    const session = kit.requireSession(request);
    if (!isUuid(id)) throw new PageRefusal(404, "");
    const page = await meetings.page(kit.actor(session), id.toLowerCase()).catch(asPageRefusal);
    const { meeting } = page;
    const frame = kit.frameFor(request, session, () => meeting.title);
    const notice = refusal ? { text: refusal, error: true } : kit.noticeOf(request, frame.t, NOTICES);
    const templates = await kit.deps.apps.templates.list();
    const workspace = await workspaceOf(kit, session, meeting.id, page);
    return html(
      <MeetingPage
        frame={frame}
        meeting={meeting}
        transcript={page.transcript}
        speakers={page.speakers}
        templates={templates.map((t) => ({ id: t.id, name: t.name }))}
        reportHtml={meeting.summary ? markdownToSafeHtml(meeting.summary.markdown) : null}
        hasRecording={page.hasRecording}
        pendingDocuments={page.pendingDocuments}
        rewritingReport={page.rewritingReport}
        corrected={page.corrected}
        draft={page.draft}
        notice={notice}
        workspace={workspace}
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

/** The transcript workspace's extras: failure reason, video, word timings, and each corrected line's history (newest first). */
async function workspaceOf(kit: WebKit, session: Session, meetingId: string, page: { transcript: { segments: TranscriptSegment[] } | null; corrected: ReadonlySet<number> }): Promise<WorkspaceProps> {
  const { meetings } = kit.deps.apps;
  const actor = kit.actor(session);
  const extras = await meetings.workspace(actor, meetingId, page.transcript?.segments ?? []);
  const history = new Map<number, LineCorrection[]>();
  if (page.corrected.size > 0) {
    for (const c of await meetings.corrections(actor, meetingId)) {
      const entries = history.get(c.segment_index) ?? [];
      entries.unshift({ previousText: c.previous_text, author: c.author.email, system: c.author.id === "system", createdAt: c.created_at });
      history.set(c.segment_index, entries);
    }
  }
  return { ...extras, history };
}

/** The meeting page and the progress its script polls while the meeting is processed. */
export function meetingPageRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  const { meetings } = kit.deps.apps;
  app
    .get("/meetings/:id", ({ request, params }) => pages.meetingPage(request, params.id))
    .get("/meetings/:id/progress", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = await pages.ownedMeeting(session, params.id);
      const progress = await meetings.progress(kit.actor(session), row.id);
      const frame = kit.frameFor(request, session, () => "");
      const body = {
        status: progress.status,
        status_text: frame.t(`status.${progress.status}`),
        stage: progress.stage,
        stage_text: progress.stage ? frame.t(`stage.${progress.stage}` as never) : null,
        progress: progress.progress,
        pending_documents: progress.pendingDocuments,
        rewriting_report: progress.rewritingReport,
      };
      return json(body);
    });
}

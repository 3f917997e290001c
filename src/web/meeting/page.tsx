import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { isUuid } from "../../lib/ids.ts";
import type { MeetingRow } from "../../meetings/app.ts";
import { takeFormState } from "../form-state.ts";
import { html, json } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { markdownToSafeHtml } from "../markdown.ts";
import { MeetingPage } from "../pages/meeting.tsx";
import { documentsOfPage, documentStageKey } from "./documents.ts";

/** Flash notices after a form, carried in the redirect's query string as a known key, never as text. */
const NOTICES = ["saved", "speakers", "document", "documentDeleted", "uploaded", "corrected", "regenerating", "held", "released"];

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
    // "Being written" only while a document is: after the page reloads on its completion, no notice.
    const documentDone = page.pendingDocuments === 0 && new URL(request.url).searchParams.get("notice") === "document";
    const notice = refusal ? { text: refusal, error: true } : documentDone ? undefined : kit.noticeOf(request, frame.t, NOTICES);
    const documents = { ...(await documentsOfPage(kit, kit.actor(session), frame, meeting.id)), formState: takeFormState(request) };
    return html(
      <MeetingPage
        frame={frame}
        meeting={meeting}
        transcript={page.transcript}
        speakers={page.speakers}
        documents={documents}
        reportHtml={meeting.summary ? markdownToSafeHtml(meeting.summary.markdown) : null}
        hasRecording={page.hasRecording}
        pendingDocuments={page.pendingDocuments}
        rewritingReport={page.rewritingReport}
        corrected={page.corrected}
        draft={page.draft}
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
  const { meetings } = kit.deps.apps;
  app
    .get("/meetings/:id", ({ request, params }) => pages.meetingPage(request, params.id))
    .get("/meetings/:id/progress", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = await pages.ownedMeeting(session, params.id);
      const progress = await meetings.progress(kit.actor(session), row.id);
      const frame = kit.frameFor(request, session, () => "");
      // A completed meeting whose documents are being written shows the documents' stage, not its own "Done".
      const documents = progress.status === "completed" && !progress.rewritingReport && progress.pendingDocuments > 0;
      const stage = documents ? progress.documentStage : progress.stage;
      const body = {
        status: progress.status,
        status_text: frame.t(`status.${progress.status}`),
        stage,
        stage_text: documents ? frame.t(documentStageKey(stage)) : stage ? frame.t(`stage.${stage}` as never) : null,
        progress: documents ? progress.documentProgress : progress.progress,
        pending_documents: progress.pendingDocuments,
        rewriting_report: progress.rewritingReport,
      };
      return json(body);
    });
}

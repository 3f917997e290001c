import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { isUuid } from "../../lib/ids.ts";
import type { MeetingRow } from "../../meetings/app.ts";
import { fieldsOf } from "../error-pages.tsx";
import { redirectWithFormError, type FormRefusal } from "../form-state.ts";
import { html, json } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { markdownToSafeHtml } from "../markdown.ts";
import { MeetingPage } from "../pages/meeting.tsx";

/** Flash notices after a form, carried in the redirect's query string as a known key, never as text. */
const NOTICES = ["saved", "speakers", "document", "uploaded", "corrected", "regenerating", "held", "released"];

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

  const meetingPage = async (request: Request, id: string) => {
    const session = kit.requireSession(request);
    if (!isUuid(id)) throw new PageRefusal(404, "");
    const page = await meetings.page(kit.actor(session), id.toLowerCase()).catch(asPageRefusal);
    const { meeting } = page;
    const frame = kit.frameFor(request, session, () => meeting.title);
    const notice = kit.noticeOf(request, frame.t, NOTICES);
    const templates = await kit.deps.apps.templates.list();
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
      />,
    );
  };

  /**
   * A form's refusal (a field the services reject, a legal hold) back on the meeting page
   * (post/redirect/get): the message at the field, or the service's sentence above the page;
   * `values`: what the form sent, kept.
   */
  const refusedOnPage = (request: Request, id: string, error: unknown, values: Record<string, string | null | undefined> = {}) => {
    if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
    const state: FormRefusal =
      error.code === "validation_error"
        ? // Neither a template nor a prompt: said at the prompt, the field to fill in.
          { fields: fieldsOf(error, { "client.name": "client", template_id: "prompt" }, { "prompt:template_or_prompt": "err.field.templateOrPrompt" }), values }
        : { fields: {}, formText: error.message, values };
    return redirectWithFormError(request, `/meetings/${id}`, state);
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

import type { Elysia } from "elysia";
import { ApiError } from "../../errors/api-error.ts";
import { isUuid } from "../../lib/ids.ts";
import type { MeetingRow, MeetingWorkspace } from "../../meetings/app.ts";
import { fieldsOf } from "../error-pages.tsx";
import { redirectWithFormError, type FormRefusal } from "../form-state.ts";
import { html, json } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { translator } from "../i18n.ts";
import { markdownToSafeHtml } from "../markdown.ts";
import { MeetingPage } from "../pages/meeting.tsx";
import { documentsOfPage, documentStageKey } from "./documents.ts";
import { SharePanel } from "../pages/share-panel.tsx";
import type { Actor } from "../../auth/actor.ts";
import type { MeetingAccess } from "../../sharing/app.ts";
import type { LineCorrection, WorkspaceProps } from "./workspace.tsx";

/** Flash notices after a form, carried in the redirect's query string as a known key, never as text. */
const NOTICES = ["saved", "speakers", "document", "documentDeleted", "uploaded", "corrected", "regenerating", "held", "released", "shared", "unshared", "undone"];

export type MeetingPageKit = ReturnType<typeof meetingPageKit>;

/** A signed-in user's session, as the kit reads it. */
type Session = ReturnType<WebKit["requireSession"]>;

/** What a route needs of a meeting: to read it, to correct it (lines, speaker names), or to be its owner. */
type Need = "view" | "correct" | "owner";
const ALLOWS: Record<MeetingAccess, Need[]> = { owner: ["view", "correct", "owner"], correct: ["view", "correct"], view: ["view"], none: [] };

/** A meeting the user may open: its row, the actor its use cases take, the access, and (shared) whose it is. */
export interface MeetingAccessOf {
  row: MeetingRow;
  actor: Actor;
  access: Exclude<MeetingAccess, "none">;
  sharedBy?: string;
}

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

  /**
   * A meeting the signed-in user may open, for what `need`s (sharing/, issue 25 item 7): their own
   * (everything), or one a colleague shared with them (view; correct: lines and speaker names).
   * `actor` is the one to hand the meetings' use cases. No access is the 404 page; a colleague
   * asking for more than the share gives is refused (403).
   */
  const meetingFor = async (session: Session, id: string, need: Need = "view"): Promise<MeetingAccessOf> => {
    if (!isUuid(id)) throw new PageRefusal(404, "");
    const grant = await kit.deps.apps.sharing.grantFor(kit.actor(session), id.toLowerCase());
    if (!grant) throw new PageRefusal(404, "");
    if (!ALLOWS[grant.access].includes(need)) throw new PageRefusal(403, translator(session.locale ?? "en")("share.ownerOnly"));
    const row = await meetings.row(grant.actor, id.toLowerCase()).catch(asPageRefusal);
    return { row, actor: grant.actor, access: grant.access, sharedBy: grant.sharedBy };
  };

  /** One of the signed-in user's own meetings; a colleague's shared one is refused (403), any other id is the 404 page. */
  const ownedMeeting = async (session: Session, id: string): Promise<MeetingRow> => (await meetingFor(session, id, "owner")).row;

  const meetingPage = async (request: Request, id: string) => {
    const session = kit.requireSession(request);
    const { actor, access, sharedBy } = await meetingFor(session, id);
    const page = await meetings.page(actor, id.toLowerCase()).catch(asPageRefusal);
    const { meeting } = page;
    const frame = kit.frameFor(request, session, () => meeting.title);
    // "Being written" only while a document is: after the page reloads on its completion, no notice.
    const documentDone = page.pendingDocuments === 0 && new URL(request.url).searchParams.get("notice") === "document";
    const notice = documentDone ? undefined : kit.noticeOf(request, frame.t, NOTICES);
    // The refused form's state (form-state.ts, taken by frameFor): the documents form and the share panel each show their fields of it.
    const formState = frame.formState ?? null;
    const documents = { ...(await documentsOfPage(kit, actor, frame, meeting.id)), formState: formState?.values.for === "documents" ? formState : null };
    const workspace = await workspaceOf(kit, actor, meeting.id, page);
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
        access={access}
        sharedBy={sharedBy}
        sharePanel={access === "owner" ? <SharePanel frame={frame} meetingId={meeting.id} shares={await kit.deps.apps.sharing.shares(actor, meeting.id)} state={formState} /> : undefined}
        workspace={workspace}
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

  return { meetingFor, ownedMeeting, meetingPage, refusedOnPage };
}

/** The transcript workspace's extras: failure reason, video, word timings, and each corrected line's history (newest first). */
async function workspaceOf(kit: WebKit, actor: Actor, meetingId: string, page: { workspace: MeetingWorkspace; corrected: ReadonlySet<number> }): Promise<WorkspaceProps> {
  const { meetings } = kit.deps.apps;
  const history = new Map<number, LineCorrection[]>();
  if (page.corrected.size > 0) {
    for (const c of await meetings.corrections(actor, meetingId)) {
      const entries = history.get(c.segment_index) ?? [];
      entries.unshift({ previousText: c.previous_text, author: c.author.email, system: c.author.id === "system", createdAt: c.created_at });
      history.set(c.segment_index, entries);
    }
  }
  return { ...page.workspace, history };
}

/** The meeting page and the progress its script polls while the meeting is processed. */
export function meetingPageRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  const { meetings } = kit.deps.apps;
  app
    .get("/meetings/:id", ({ request, params }) => pages.meetingPage(request, params.id))
    .get("/meetings/:id/progress", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { row, actor } = await pages.meetingFor(session, params.id);
      const progress = await meetings.progress(actor, row.id);
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

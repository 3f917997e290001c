import type { Elysia } from "elysia";
import { documentRequestBody } from "../../documents/app.ts";
import { ApiError } from "../../errors/api-error.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { patchMeetingBody } from "../../meetings/app.ts";
import { redirectWithFormError } from "../form-state.ts";
import { html, json, redirect } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { playerTime } from "../pages/meeting.tsx";
import { SegmentEditPage } from "../pages/segment-edit.tsx";
import type { MeetingPageKit } from "./page.tsx";

/** The page's script asks for JSON; a form without JavaScript gets the page back. */
const wantsJson = (request: Request) => (request.headers.get("accept") ?? "").includes("application/json");

/** A line's index in a path: digits, else -1 (no such line). */
const lineIndex = (value: string) => (/^\d{1,7}$/.test(value) ? Number(value) : -1);

/**
 * The meeting page's forms: details, speaker names, a document asked for or deleted, a corrected
 * line, the report written again, and deletion. A refusal of the services is shown on the meeting page.
 */
export function meetingFormRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  const { apps } = kit.deps;

  /** Runs a form's change, then back to the meeting with its notice (and `fragment`); a refusal comes back to the page, `values` kept. */
  const changed = async (request: Request, meetingId: string, notice: string, change: () => unknown, values?: Record<string, string | null | undefined>, fragment = "") => {
    try {
      await change();
    } catch (error) {
      return pages.refusedOnPage(request, meetingId, error, values);
    }
    return redirect(`/meetings/${meetingId}?notice=${notice}${fragment}`);
  };

  app
    .post("/meetings/:id/details", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      const client = (form.get("client") ?? "").trim();
      const tags = (form.get("tags") ?? "")
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean);
      return changed(request, row.id, "saved", () => {
        const patch = parseOrThrow(patchMeetingBody, { title: form.get("title") ?? undefined, tags, client: client ? { name: client } : null });
        return apps.meetings.patch(kit.actor(session), row.id, patch);
      }, { for: "details", title: form.get("title"), client, tags: form.get("tags") });
    })
    .post("/meetings/:id/speakers", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const { row, actor } = await pages.meetingFor(session, params.id, "correct");
      const names = new Map<string, string>();
      for (const [field, value] of form) {
        const label = /^speaker\.(SPEAKER_\d{2,3})$/.exec(field)?.[1];
        if (label) names.set(label, value.slice(0, 200));
      }
      // The page's script renames in place (playback goes on): it asks for the names as now held.
      if (wantsJson(request)) {
        try {
          await apps.meetings.nameSpeakers(actor, row.id, names);
        } catch (error) {
          if (error instanceof ApiError && error.status < 500 && error.status !== 404) return json({ error: error.message }, error.status);
          throw error;
        }
        // Each label renamed now holds the name typed for it (speaker-names.ts), or none when left empty.
        return json({ speakers: [...names].map(([label, name]) => ({ label, name: name.trim() })) });
      }
      return changed(request, row.id, "speakers", () => apps.meetings.nameSpeakers(actor, row.id, names));
    })
    .post("/meetings/:id/documents", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      const templateId = form.get("template_id") || undefined;
      const prompt = form.get("prompt")?.trim() || undefined;
      // Neither a template nor a prompt: back to the form, with the message at the prompt.
      if (!templateId && !prompt) {
        const values = { for: "documents", template_id: "custom", include_transcript: form.get("include_transcript") ?? "" };
        return redirectWithFormError(request, `/meetings/${row.id}#documents-title`, { fields: { prompt: "docs.promptMissing" }, values });
      }
      return changed(request, row.id, "document", () => {
        const asked = parseOrThrow(documentRequestBody, {
          ...(templateId ? { template_id: templateId } : { prompt }),
          include_transcript: form.get("include_transcript") === "true",
        });
        return apps.documents.request(kit.actor(session), row.id, asked);
      }, { for: "documents", template_id: templateId, prompt });
    })
    .post("/meetings/:id/documents/:documentId/delete", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      return changed(request, row.id, "documentDeleted", () => apps.documents.delete(kit.actor(session), params.documentId));
    })
    .get("/meetings/:id/segments/:index/edit", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { row, actor } = await pages.meetingFor(session, params.id, "correct");
      const { transcript } = await apps.transcripts.get(actor, row.id);
      const index = lineIndex(params.index);
      const segment = transcript.segments[index];
      if (!segment) throw new PageRefusal(404, "");
      const frame = kit.frameFor(request, session, (t) => t("meeting.correctLine", { time: playerTime(segment.start) }));
      return html(<SegmentEditPage frame={frame} meetingId={row.id} index={index} start={segment.start} speaker={segment.speaker_name ?? segment.speaker} text={segment.text} />);
    })
    .post("/meetings/:id/segments/:index", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const { row, actor } = await pages.meetingFor(session, params.id, "correct");
      const index = lineIndex(params.index);
      const { text, version } = await apps.transcripts.correctSegment(actor, row.id, index, form.get("text") ?? "");
      // The inline editor asks for JSON; a form without JavaScript goes back to the line.
      if (wantsJson(request)) {
        return json({ text, version });
      }
      return redirect(`/meetings/${row.id}?notice=corrected#seg-${index}`);
    })
    .post("/meetings/:id/segments/:index/undo", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const { row, actor } = await pages.meetingFor(session, params.id, "correct");
      const index = lineIndex(params.index);
      return changed(request, row.id, "undone", () => apps.transcripts.undoCorrection(actor, row.id, index), undefined, `#seg-${index}`);
    })
    .post("/meetings/:id/report/regenerate", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      return changed(request, row.id, "regenerating", () => apps.meetings.regenerateReport(kit.actor(session), row.id));
    })
    .post("/meetings/:id/hold", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      const hold = form.get("legal_hold") === "true";
      return changed(request, row.id, hold ? "held" : "released", () => apps.meetings.patch(kit.actor(session), row.id, { legal_hold: hold }));
    })
    .post("/meetings/:id/delete", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      if (form.get("confirm") !== "yes") return redirectWithFormError(request, `/meetings/${row.id}`, { fields: {}, form: "meeting.deleteConfirmMissing" });
      try {
        await apps.meetings.delete(kit.actor(session), row.id);
      } catch (error) {
        // A legal hold (409) is shown on the meeting page, which says what holds it.
        return pages.refusedOnPage(request, row.id, error);
      }
      return redirect("/meetings?notice=deleted");
    });
}

import type { Elysia } from "elysia";
import { documentRequestBody } from "../../documents/app.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { patchMeetingBody } from "../../meetings/app.ts";
import { redirectWithFormError } from "../form-state.ts";
import { html, json, redirect } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { playerTime } from "../pages/meeting.tsx";
import { SegmentEditPage } from "../pages/segment-edit.tsx";
import type { MeetingPageKit } from "./page.tsx";

/** A line's index in a path: digits, else -1 (no such line). */
const lineIndex = (value: string) => (/^\d{1,7}$/.test(value) ? Number(value) : -1);

/**
 * The meeting page's forms: details, speaker names, a document, a corrected line, the report
 * written again, and deletion. A refusal of the services is shown on the meeting page.
 */
export function meetingFormRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  const { apps } = kit.deps;

  /** Runs a form's change, then back to the meeting with its notice; a refusal comes back to the page, `values` kept. */
  const changed = async (request: Request, meetingId: string, notice: string, change: () => unknown, values?: Record<string, string | null | undefined>) => {
    try {
      await change();
    } catch (error) {
      return pages.refusedOnPage(request, meetingId, error, values);
    }
    return redirect(`/meetings/${meetingId}?notice=${notice}`);
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
      const row = await pages.ownedMeeting(session, params.id);
      const names = new Map<string, string>();
      for (const [field, value] of form) {
        const label = /^speaker\.(SPEAKER_\d{2,3})$/.exec(field)?.[1];
        if (label) names.set(label, value.slice(0, 200));
      }
      return changed(request, row.id, "speakers", () => apps.meetings.nameSpeakers(kit.actor(session), row.id, names));
    })
    .post("/meetings/:id/documents", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      const templateId = form.get("template_id") || undefined;
      const prompt = form.get("prompt")?.trim() || undefined;
      return changed(request, row.id, "document", () => {
        const asked = parseOrThrow(documentRequestBody, {
          ...(templateId ? { template_id: templateId } : { prompt }),
          include_transcript: form.get("include_transcript") === "true",
        });
        return apps.documents.request(kit.actor(session), row.id, asked);
      }, { for: "documents", template_id: templateId, prompt });
    })
    .get("/meetings/:id/segments/:index/edit", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const row = await pages.ownedMeeting(session, params.id);
      const { transcript } = await apps.transcripts.get(kit.actor(session), row.id);
      const index = lineIndex(params.index);
      const segment = transcript.segments[index];
      if (!segment) throw new PageRefusal(404, "");
      const frame = kit.frameFor(request, session, (t) => t("meeting.correctLine", { time: playerTime(segment.start) }));
      return html(<SegmentEditPage frame={frame} meetingId={row.id} index={index} start={segment.start} speaker={segment.speaker_name ?? segment.speaker} text={segment.text} />);
    })
    .post("/meetings/:id/segments/:index", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const row = await pages.ownedMeeting(session, params.id);
      const index = lineIndex(params.index);
      const { text, version } = await apps.transcripts.correctSegment(kit.actor(session), row.id, index, form.get("text") ?? "");
      // The inline editor asks for JSON; a form without JavaScript goes back to the line.
      if ((request.headers.get("accept") ?? "").includes("application/json")) {
        return json({ text, version });
      }
      return redirect(`/meetings/${row.id}?notice=corrected#seg-${index}`);
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

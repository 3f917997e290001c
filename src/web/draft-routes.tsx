import type { Elysia } from "elysia";
import { readBounded } from "../http/body.ts";
import { listMeetingsQuery, MAX_PART_BYTES, MIN_PART_BYTES, redactPiiFromField, vocabularyList } from "../meetings/app.ts";
import { redirectWithFormError, takeFormState } from "./form-state.ts";
import { html, json, redirect, respond } from "./http.ts";
import { PageRefusal, type WebKit } from "./kit.ts";
import { RecordPage, type UnfinishedRecording } from "./pages/record.tsx";

/** The part size the browser sends: half the server's bound, so a part never meets it. */
export const PART_BYTES = MAX_PART_BYTES / 2;

/**
 * Draft meetings, for the browser's recorder and its resumable uploader (web/islands): create a
 * draft, send its recording in numbered parts (again after a cut: a part sent twice is stored
 * once), ask which parts arrived, then finish it, which queues its processing. Every call is the
 * signed-in user's own, with the session's CSRF token (a header from the scripts, a field from a
 * form).
 */
export function draftRoutes(app: Elysia, kit: WebKit): void {
  const { meetings } = kit.deps.apps;

  /** The actor's recordings started in the browser and never finished (the newest few drafts), with what arrived of each. */
  const unfinishedRecordings = async (actor: ReturnType<WebKit["actor"]>): Promise<UnfinishedRecording[]> => {
    const drafts = await meetings.list(actor, listMeetingsQuery.parse({ status: "draft", limit: 10 }));
    const recordings = drafts.data.filter((meeting) => meeting.source === "live_recording");
    return Promise.all(
      recordings.map(async (meeting) => {
        const { received, bytes } = await meetings.draftParts(actor, meeting.id);
        return { id: meeting.id, title: meeting.title ?? null, createdAt: meeting.created_at, parts: received.length, bytes };
      }),
    );
  };

  app
    .get("/record", async ({ request }) => {
      const session = kit.requireSession(request);
      const actor = kit.actor(session);
      const redaction = await meetings.redactionDefaults(actor);
      const frame = kit.frameFor(request, session, (t) => t("record.title"));
      const notice = kit.noticeOf(request, frame.t, ["discarded"], "rec.");
      const unfinished = await unfinishedRecordings(actor);
      return html(<RecordPage frame={frame} redaction={redaction} unfinished={unfinished} notice={notice} refused={takeFormState(request)} />);
    })
    // An unfinished recording discarded from /record: deleted as a meeting is, once its box is ticked.
    .post("/record/drafts/:id/discard", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const actor = kit.actor(session);
      const row = await meetings.row(actor, params.id);
      if (row.status !== "draft") throw new PageRefusal(404, "");
      // Post/redirect/get either way: the page says what is missing at that recording's box.
      if (form.get("confirm") !== "yes") return redirectWithFormError(request, "/record", { fields: { confirm: "rec.discardNeedsConfirm" }, values: { draft: row.id } });
      await meetings.delete(actor, row.id);
      return redirect("/record?notice=discarded");
    })
    .post("/meetings/drafts", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const kind = form.get("kind") === "recording" ? "live_recording" : "upload";
      const fileName = kind === "upload" ? (form.get("file_name") ?? "").slice(0, 255) || null : null;
      // Before anyone records an hour, the use case checks the month's web app audio has minutes left.
      const id = await meetings.createDraft(
        kit.actor(session),
        {
          title: form.get("title")?.trim() || undefined,
          language: form.get("language") || undefined,
          tags: (form.get("tags") ?? "").split(",").map((tag) => tag.trim()).filter(Boolean),
          vocabulary: vocabularyList(form.get("vocabulary") ?? ""),
          redact_pii: redactPiiFromField(form.get("redact_pii")),
        },
        { source: kind, fileName },
      );
      return json({ id, part_bytes: PART_BYTES, min_part_bytes: MIN_PART_BYTES }, 201);
    })
    .get("/meetings/:id/parts", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const { status, received, bytes } = await meetings.draftParts(kit.actor(session), params.id);
      return json({ status, received, bytes });
    })
    .put("/meetings/:id/parts/:index", async ({ request, params }) => {
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, undefined);
      // One part in memory at a time per processing slot of the plan, as for uploads.
      const index = /^\d{1,6}$/.test(params.index) ? Number(params.index) : -1;
      await meetings.storeDraftPart(kit.actor(session), params.id, index, () => readBounded(request, MAX_PART_BYTES));
      return respond(null, 204, {});
    })
    .post("/meetings/:id/finish", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const expected = form.get("expected_bytes");
      await meetings.finishDraft(kit.actor(session), params.id, expected && /^\d{1,13}$/.test(expected) ? Number(expected) : undefined);
      return redirect(`/meetings/${params.id}`);
    });
}

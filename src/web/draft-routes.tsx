import type { Elysia } from "elysia";
import { ApiError } from "../errors/api-error.ts";
import { readBounded } from "../http/body.ts";
import { parseOrThrow } from "../http/validation.ts";
import { createDraftMeeting } from "../meetings/create.ts";
import { assertDraftAdmitted, finishDraft, listDraftParts, MAX_PART_BYTES, MIN_PART_BYTES, storeDraftPart } from "../meetings/drafts.ts";
import { getOwnedMeetingRow } from "../meetings/render.ts";
import { createMeetingUpload } from "../meetings/schema.ts";
import { admitBeforeUpload } from "../usage/admission-store.ts";
import { html, json, redirect, respond } from "./http.ts";
import type { WebKit } from "./kit.ts";
import { RecordPage } from "./pages/record.tsx";

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
  const { deps } = kit;

  app
    .get("/record", ({ request }) => {
      const session = kit.requireSession(request);
      return html(<RecordPage frame={kit.frameFor(request, session, (t) => t("record.title"))} />);
    })
    .post("/meetings/drafts", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      // Before anyone records an hour: the month's web app audio must have minutes left.
      admitBeforeUpload(deps.db, deps, { account: kit.account(session), channel: "webapp" }, deps.clock.now(), { slot: false });
      const kind = form.get("kind") === "recording" ? "live_recording" : "upload";
      const fields = parseOrThrow(createMeetingUpload, {
        title: form.get("title")?.trim() || undefined,
        language: form.get("language") || undefined,
        tags: (form.get("tags") ?? "").split(",").map((tag) => tag.trim()).filter(Boolean),
      });
      const fileName = kind === "upload" ? (form.get("file_name") ?? "").slice(0, 255) || null : null;
      const id = createDraftMeeting(deps.db, deps.clock, { userId: session.user.id }, fields, { source: kind, fileName }, (tx) =>
        assertDraftAdmitted(tx, session.user.id, deps.drafts),
      );
      return json({ id, part_bytes: PART_BYTES, min_part_bytes: MIN_PART_BYTES }, 201);
    })
    .get("/meetings/:id/parts", ({ request, params }) => {
      const session = kit.requireSession(request);
      const owned = getOwnedMeetingRow(deps.db, session.user.id, params.id);
      if (!owned) throw ApiError.notFound(`Meeting ${params.id}`);
      const { indexes, bytes } = listDraftParts(deps.db, owned.id);
      return json({ status: owned.status, received: indexes, bytes });
    })
    .put("/meetings/:id/parts/:index", async ({ request, params }) => {
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, undefined);
      // One part in memory at a time per processing slot of the plan, as for uploads.
      const release = deps.uploads.acquire(session.user.id, deps.slots[session.user.plan] ?? 1);
      try {
        const bytes = await readBounded(request, MAX_PART_BYTES);
        await storeDraftPart(deps, session.user.id, params.id, /^\d{1,6}$/.test(params.index) ? Number(params.index) : -1, bytes);
      } finally {
        release();
      }
      return respond(null, 204, {});
    })
    .post("/meetings/:id/finish", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      const expected = form.get("expected_bytes");
      await finishDraft(deps, kit.account(session), params.id, expected && /^\d{1,13}$/.test(expected) ? Number(expected) : undefined);
      deps.scheduler.wake();
      return redirect(`/meetings/${params.id}`);
    });
}

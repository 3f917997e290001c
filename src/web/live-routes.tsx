import type { Elysia } from "elysia";
import { readBounded } from "../http/body.ts";
import { MIN_PART_BYTES } from "../meetings/app.ts";
import { json, respond } from "./http.ts";
import type { WebKit } from "./kit.ts";

/**
 * The live transcript of a recording being made (issue 25, item 8; meetings/live-transcript.ts):
 * the recorder page sends the part it is still gathering (the parts themselves go to
 * PUT /meetings/:id/parts/:index, draft-routes.tsx) and polls the provisional text. Both are the
 * signed-in owner's only (another account's draft: 404), never cached.
 */
export function liveRoutes(app: Elysia, kit: WebKit): void {
  const { meetings } = kit.deps.apps;

  app
    .get("/meetings/:id/live", async ({ request, params }) => {
      const session = kit.requireSession(request);
      const after = Number(new URL(request.url).searchParams.get("after") ?? 0);
      const live = await meetings.liveTranscript(kit.actor(session), params.id, Number.isInteger(after) && after >= 0 ? after : 0);
      return json({
        live: live.live,
        enabled: live.enabled,
        after: live.after,
        total: live.total,
        heard_seconds: live.heardSeconds,
        skipped_seconds: live.skippedSeconds,
        segments: live.segments,
      });
    })
    .put("/meetings/:id/live/:index", async ({ request, params }) => {
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, undefined);
      const index = /^\d{1,6}$/.test(params.index) ? Number(params.index) : -1;
      await meetings.storeGatheringPart(kit.actor(session), params.id, index, () => readBounded(request, MIN_PART_BYTES));
      return respond(null, 204, {});
    });
}

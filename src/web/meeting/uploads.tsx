import type { Elysia } from "elysia";
import { assertFreeSlot } from "../../jobs/slot-store.ts";
import { assertWebappQuota } from "../../usage/webapp-quota-store.ts";
import { createMeeting } from "../../meetings/create.ts";
import { assertDiskAdmitsRecordings } from "../../meetings/disk-admission.ts";
import { discardReceived, receiveMeeting } from "../../meetings/receive.ts";
import { uploadsTmpDir } from "../../storage/paths.ts";
import { html, redirect } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { UploadPage } from "../pages/upload.tsx";

/** The upload form and its multipart POST: a recording to transcribe, streamed to disk. */
export function uploadRoutes(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  app
    .get("/meetings/new", ({ request }) => {
      const session = kit.requireSession(request);
      const frame = kit.frameFor(request, session, (t) => t("upload.title"));
      return html(<UploadPage frame={frame} maxBytes={deps.maxUploadBytes} />);
    })
    .post("/meetings/new", async ({ request }) => {
      // A multipart body: the CSRF token comes in the query string (not logged) or a header.
      const session = kit.requireSession(request);
      kit.assertCsrf(request, session, new URL(request.url).searchParams.get("_csrf") ?? undefined);
      const account = kit.account(session);
      assertDiskAdmitsRecordings(deps.dataDir, deps.minFreeDisk);
      let release: (() => void) | undefined;
      try {
        const { parsed } = await receiveMeeting(request, {
          tmpDir: uploadsTmpDir(deps.dataDir),
          egress: deps.egress,
          maxUploadBytes: deps.maxUploadBytes,
          templates: deps.templates,
          dropEmptyFields: true,
          owner: { db: deps.db, userId: account.userId },
          // Once the form's fields are valid, before its file: fail fast before a long upload; checked
          // again when creating. The web app's usage never draws on the API allowance, so there is
          // no balance check.
          admit: () => {
            assertFreeSlot(deps.db, account.userId, account.plan, deps.slots);
            assertWebappQuota(deps.db, deps.billing, account, deps.clock.now(), "audio");
            release = deps.uploads.acquire(account.userId, deps.slots[account.plan] ?? 1);
          },
        });
        if (parsed.recording.kind !== "upload") {
          discardReceived(parsed);
          throw new PageRefusal(400, kit.frameFor(request, session, (t) => t("upload.title")).t("upload.fileRequired"));
        }
        try {
          const { meetingId } = await createMeeting(deps, account, parsed.fields, parsed.recording, undefined, "webapp");
          deps.scheduler.wake();
          return redirect(`/meetings/${meetingId}`);
        } catch (error) {
          discardReceived(parsed);
          throw error;
        }
      } finally {
        release?.();
      }
    });
}

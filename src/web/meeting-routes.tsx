import type { Elysia } from "elysia";
import type { WebKit } from "./kit.ts";
import { audioRoutes } from "./meeting/audio.ts";
import { downloadRoutes } from "./meeting/downloads.ts";
import { meetingFormRoutes } from "./meeting/forms.tsx";
import { meetingPageKit, meetingPageRoutes } from "./meeting/page.tsx";
import { textMeetingRoutes } from "./meeting/text.ts";
import { uploadRoutes } from "./meeting/uploads.tsx";

/**
 * The meeting pages, one file per reason to change (web/meeting/): the upload form, a meeting from
 * text, the meeting page and its progress, the recording for the player (byte ranges), the
 * downloads, and the page's forms.
 */
export function meetingPages(app: Elysia, kit: WebKit): void {
  const pages = meetingPageKit(kit);
  uploadRoutes(app, kit);
  textMeetingRoutes(app, kit);
  meetingPageRoutes(app, kit, pages);
  audioRoutes(app, kit, pages);
  downloadRoutes(app, kit, pages);
  meetingFormRoutes(app, kit, pages);
}

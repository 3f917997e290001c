import type { Elysia } from "elysia";
import type { StoredFile } from "../../meetings/app.ts";
import { contentDisposition, meetingFileName } from "../file-names.ts";
import { respond } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { sniffAudioType } from "../media/audio-type.ts";
import { parseByteRange } from "../media/byte-range.ts";
import type { MeetingPageKit } from "./page.tsx";

/** A recording's extension by the type its first bytes tell (media/audio-type.ts). */
const RECORDING_EXTENSIONS: Record<string, string> = {
  "audio/wav": "wav",
  "audio/flac": "flac",
  "audio/ogg": "ogg",
  "audio/mp4": "m4a",
  "audio/webm": "webm",
  "audio/mpeg": "mp3",
  "video/mp4": "mp4",
  "video/webm": "webm",
};

/** The meeting's recording for the player. */
export function audioRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  app.get("/meetings/:id/audio", async ({ request, params }) => {
    const session = kit.requireSession(request);
    const { row, actor } = await pages.meetingFor(session, params.id);
    // Deleted by the account's retention policy: gone for good, and said so.
    if (row.recordingDeletedAt !== null) throw new PageRefusal(410, kit.frameFor(request, session, () => "").t("hold.recordingGone"));
    const file = await kit.deps.apps.meetings.recording(actor, row.id);
    if (file === null) throw new PageRefusal(404, "");
    const response = await audioResponse(request, file);
    // Saved (the Downloads link), it is named from the meeting like every other download.
    const extension = RECORDING_EXTENSIONS[response.headers.get("content-type") ?? ""] ?? "bin";
    const words = kit.frameFor(request, session, () => "").t;
    response.headers.set("content-disposition", contentDisposition("inline", meetingFileName(row, extension, words("docs.file.recording"))));
    return response;
  });
}

/** The recording for the player, whole or one byte range (206): browsers seek with Range requests. */
export async function audioResponse(request: Request, file: StoredFile): Promise<Response> {
  const { size } = file;
  // The first bytes, enough to tell the container.
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  const headers: Record<string, string> = { "accept-ranges": "bytes", "cache-control": "private, no-store", "content-type": sniffAudioType(head) };
  const range = parseByteRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") return respond(null, 416, { ...headers, "content-range": `bytes */${size}` });
  if (range === null) return respond(file.slice(0, size), 200, headers);
  return respond(file.slice(range.start, range.end + 1), 206, { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}` });
}

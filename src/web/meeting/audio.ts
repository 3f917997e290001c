import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { Elysia } from "elysia";
import { respond } from "../http.ts";
import type { WebKit } from "../kit.ts";
import { PageRefusal } from "../kit.ts";
import { sniffAudioType } from "../media/audio-type.ts";
import { parseByteRange } from "../media/byte-range.ts";
import type { MeetingPageKit } from "./page.tsx";

/** The meeting's recording for the player. */
export function audioRoutes(app: Elysia, kit: WebKit, pages: MeetingPageKit): void {
  app.get("/meetings/:id/audio", async ({ request, params }) => {
    const session = kit.requireSession(request);
    const row = await pages.ownedMeeting(session, params.id);
    const path = await kit.deps.apps.meetings.recording(kit.actor(session), row.id);
    if (path === null) throw new PageRefusal(404, "");
    return audioResponse(request, path);
  });
}

/** The first bytes of a file, enough to tell its container. */
function headOf(path: string): Uint8Array {
  const head = new Uint8Array(16);
  const fd = openSync(path, "r");
  try {
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** The recording for the player, whole or one byte range (206): browsers seek with Range requests. */
export function audioResponse(request: Request, path: string): Response {
  const size = statSync(path).size;
  const headers: Record<string, string> = { "accept-ranges": "bytes", "cache-control": "private, no-store", "content-type": sniffAudioType(headOf(path)) };
  const range = parseByteRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") return respond(null, 416, { ...headers, "content-range": `bytes */${size}` });
  const file = Bun.file(path);
  if (range === null) return respond(file, 200, headers);
  return respond(file.slice(range.start, range.end + 1), 206, { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}` });
}

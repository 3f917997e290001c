import { mkdirSync, rmSync } from "node:fs";
import type { Plan } from "../auth/plans.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import type { Clock } from "../lib/time.ts";
import { meetingDir } from "../storage/paths.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Channel } from "../lib/channel.ts";
import { insertMeeting } from "./store.ts";
import { enqueueReportOnly, transcriptChars, writeSummarizeInput } from "./regenerate-report.ts";
import type { CreateMeetingFields } from "./schema.ts";
import { reindexMeeting } from "./search-index.ts";
import { participants, transcripts } from "./table.ts";
import { parseTextTranscript } from "./text-transcript.ts";

/**
 * A meeting from a text transcript (source text, web app): no audio, so no decoding or
 * transcription: the transcript is stored as the text gives it, its named speakers become
 * participants, and a report-only job writes the AI report, admitted like any language-model
 * work (for the web app, one writing of its documents quota).
 */
export function createTextMeeting(
  deps: { db: Db; dataDir: string; clock: Clock; slots: ParallelSlots; billing: BillingSettings },
  account: { userId: string; plan: Plan },
  fields: CreateMeetingFields,
  text: string,
  channel: Channel,
): string {
  const parsed = parseTextTranscript(text);
  if (parsed.segments.length === 0) {
    throw ApiError.validation([{ field: "text", code: "too_short", message: "The transcript has no words." }]);
  }
  const now = deps.clock.now();
  const meetingId = crypto.randomUUID();
  const language = fields.language === "auto" ? null : fields.language;
  const speakers = [...new Set(parsed.segments.map((s) => s.speaker))];
  const duration = parsed.segments.at(-1)!.end;
  mkdirSync(meetingDir(deps.dataDir, meetingId), { recursive: true, mode: 0o700 });
  try {
    writeSummarizeInput(deps.dataDir, meetingId, { language, model: "text", durationSeconds: duration, speakers, segments: parsed.segments, turns: [] });
    deps.db.transaction(
      (tx) => {
        const title = `Transcript of ${new Date(now).toISOString().slice(0, 10)}`;
        insertMeeting(tx, meetingId, account, fields, { source: "text", fileName: null, audioUrl: null, fallbackTitle: title }, "queued", now);
        tx.insert(transcripts).values({ meetingId, language, durationSeconds: duration > 0 ? Math.round(duration) : null, model: "text", speakers, segments: parsed.segments, speakerTurns: [], createdAt: now }).run();
        for (const speaker of parsed.speakers) {
          tx.insert(participants).values({ meetingId, name: speaker.name, email: null, speakerLabels: [speaker.label] }).run();
        }
        reindexMeeting(tx, meetingId);
        enqueueReportOnly(tx, deps, account, meetingId, channel, transcriptChars(parsed), now);
      },
      { behavior: "immediate" },
    );
  } catch (error) {
    rmSync(meetingDir(deps.dataDir, meetingId), { recursive: true, force: true });
    throw error;
  }
  return meetingId;
}

import { z } from "zod";
import { declareJobKind } from "../jobs/kind.ts";

/**
 * live_transcription as the queue sees it (jobs/kind.ts): the provisional transcript of a
 * recording still being made in the web app (meetings/live-transcript.ts). Internal: it holds no
 * processing slot and the API never lists it (its jobs are the web app's channel).
 */
export const liveTranscriptionJob = declareJobKind({
  kind: "live_transcription",
  stages: ["transcribing"],
  payload: z.object({}),
  internal: true,
});

import type { Actor } from "../auth/actor.ts";
import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Clock } from "../lib/time.ts";
import { ownsMeeting } from "../meetings/store.ts";
import type { CreateFeedback } from "./schema.ts";
import { insertFeedback, type FeedbackRow } from "./store.ts";

/** Feedback about the service (POST /v1/feedback): recorded, never answered through the API. */
export function feedbackApp(deps: { conn: Conn; clock: Clock }) {
  return {
    /** Records the account's feedback; a meeting it names must be the account's (else 404, never 403). */
    async create(actor: Actor, input: CreateFeedback): Promise<FeedbackRow> {
      const userId = actor.account.userId;
      const meetingId = input.meeting_id?.toLowerCase() ?? null;
      if (meetingId !== null && !(await run(deps.conn, async (q) => await ownsMeeting(q, userId, meetingId)))) throw ApiError.notFound(`Meeting ${meetingId}`);
      return insertFeedback(deps.conn, { userId, type: input.type, message: input.message, meetingId, createdAt: deps.clock.now() });
    },
  };
}

export type FeedbackApp = ReturnType<typeof feedbackApp>;

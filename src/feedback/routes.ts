import { apiActor } from "../auth/actor.ts";
import { access, defineRoute } from "../http/route.ts";
import type { FeedbackApp } from "./app.ts";
import { createFeedbackBody, feedbackSchema } from "./schema.ts";
import { renderFeedback } from "./render.ts";

export function feedbackRoutes(deps: { feedback: FeedbackApp }) {
  return [
    defineRoute({
      method: "POST",
      path: "/api/v1/feedback",
      operationId: "createFeedback",
      summary: "Send feedback about the service (no reply through the API)",
      tag: "Account",
      access: access.any,
      body: createFeedbackBody,
      responses: { 201: { description: "The feedback was recorded", schema: feedbackSchema } },
      errors: ["malformed_body", "unsupported_media_type", "request_too_large"],
      handle: async ({ principal, body }) => ({ status: 201, body: renderFeedback(await deps.feedback.create(apiActor(principal), body)) }),
    }),
  ];
}

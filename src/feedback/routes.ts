import type { Db } from "../db/client.ts";
import { access, defineRoute } from "../http/route.ts";
import { createFeedbackBody, feedbackSchema } from "./schema.ts";
import { createFeedback } from "./service.ts";

export function feedbackRoutes(deps: { db: Db }) {
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
      handle: ({ principal, body }) => ({ status: 201, body: createFeedback(deps.db, principal.user.id, body) }),
    }),
  ];
}

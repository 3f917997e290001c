import { readJsonBody } from "../http/body.ts";
import { access, defineRoute } from "../http/route.ts";
import { renderRedactionDefaults, type MeetingsApp } from "./app.ts";
import { redactionSettingsInput, redactionSettingsSchema } from "./redaction.ts";
import { apiActor } from "./routes.ts";

/**
 * The account's personal-data redaction default (issue 23): GET and PUT /v1/redaction. It belongs
 * to the meetings it applies to, so it reads with read:meetings and changes with write:meetings.
 */
export function redactionRoutes({ meetings }: { meetings: MeetingsApp }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/redaction",
      operationId: "getRedactionSettings",
      summary: "The account's redaction default (used by meetings created without redact_pii) and its case/file number pattern",
      tag: "Meetings",
      access: access.allOf("read:meetings"),
      responses: { 200: { description: "The account's redaction settings", schema: redactionSettingsSchema } },
      handle: async ({ principal }) => ({ status: 200, body: renderRedactionDefaults(await meetings.redactionDefaults(apiActor(principal))) }),
    }),
    defineRoute({
      method: "PUT",
      path: "/api/v1/redaction",
      operationId: "setRedactionSettings",
      summary: "Replace the account's redaction default and case/file number pattern; meetings created from then on that do not say use it",
      tag: "Meetings",
      access: access.allOf("write:meetings"),
      requestBodyDoc: { "application/json": redactionSettingsInput },
      responses: { 200: { description: "The account's redaction settings", schema: redactionSettingsSchema } },
      errors: ["malformed_body", "unsupported_media_type"],
      handle: async ({ principal, request }) => ({
        status: 200,
        body: renderRedactionDefaults(await meetings.setRedactionDefaults(apiActor(principal), await readJsonBody(request))),
      }),
    }),
  ];
}

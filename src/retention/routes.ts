import { apiActor } from "../auth/actor.ts";
import { access, defineRoute } from "../http/route.ts";
import { renderRetentionPolicy, type RetentionApp } from "./app.ts";
import { retentionPolicyBody, retentionPolicySchema } from "./schema.ts";

/** GET and PUT /v1/retention: the account's retention policy (docs/api-notes.md, issue 23). */
export function retentionRoutes(deps: { retention: RetentionApp }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/retention",
      operationId: "getRetentionPolicy",
      summary: "The account's retention policy: when meetings, or only their recordings, are deleted (null: never)",
      tag: "Retention",
      access: access.allOf("read:meetings"),
      responses: { 200: { description: "The policy", schema: retentionPolicySchema } },
      handle: async ({ principal }) => ({ status: 200, body: renderRetentionPolicy(await deps.retention.get(apiActor(principal))) }),
    }),
    defineRoute({
      method: "PUT",
      path: "/api/v1/retention",
      operationId: "setRetentionPolicy",
      summary: "Replace the retention policy; the hourly sweep then deletes what is past it, except meetings under a legal hold",
      tag: "Retention",
      access: access.allOf("write:meetings"),
      body: retentionPolicyBody,
      responses: { 200: { description: "The policy", schema: retentionPolicySchema } },
      errors: ["malformed_body", "unsupported_media_type"],
      handle: async ({ principal, body }) => ({ status: 200, body: renderRetentionPolicy(await deps.retention.set(apiActor(principal), body)) }),
    }),
  ];
}

import type { Actor } from "../auth/actor.ts";
import { access, defineRoute, type HandlerInput } from "../http/route.ts";
import type { JobsApp } from "./app.ts";
import { jobParams, jobSchemas } from "./schema.ts";

/** The API's caller as the use cases take it. */
function apiActor({ principal }: Pick<HandlerInput<unknown, unknown, unknown>, "principal">): Actor {
  return { account: { userId: principal.user.id, plan: principal.user.plan }, channel: "api", credential: principal.credential, clientAddress: principal.clientAddress };
}

export function jobRoutes(deps: { jobs: JobsApp }) {
  const { listJobsQuery, jobSchema, jobPageSchema } = jobSchemas();
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/jobs",
      operationId: "listJobs",
      summary: "The account's jobs, newest first (filter by kind and status to reconcile after a missed webhook)",
      tag: "Jobs",
      access: access.any,
      query: listJobsQuery,
      responses: { 200: { description: "A page of jobs", schema: jobPageSchema } },
      handle: async (input) => ({ status: 200, body: await deps.jobs.list(apiActor(input), input.query) }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/jobs/:job_id",
      operationId: "getJob",
      summary: "One job, for polling every 10 to 30 seconds",
      tag: "Jobs",
      access: access.any,
      params: jobParams,
      responses: { 200: { description: "The job", schema: jobSchema } },
      handle: async (input) => ({ status: 200, body: await deps.jobs.get(apiActor(input), input.params.job_id) }),
    }),
  ];
}

import type { Db } from "../db/client.ts";
import { access, defineRoute } from "../http/route.ts";
import { getJob, listJobs } from "./query.ts";
import { jobPageSchema, jobParams, jobSchema, listJobsQuery } from "./schema.ts";

export function jobRoutes(deps: { db: Db }) {
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
      handle: ({ principal, query }) => ({ status: 200, body: listJobs(deps.db, principal.user.id, query) }),
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
      handle: ({ principal, params }) => ({ status: 200, body: getJob(deps.db, principal.user.id, params.job_id) }),
    }),
  ];
}

import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import type { JobListFilter } from "./query.ts";
import { getJob, listJobs } from "./store.ts";

/**
 * The jobs' use cases (GET /v1/jobs and /v1/jobs/{id}): the acting account's API jobs. A web app
 * job (channel webapp) is never the API's to list or show.
 */
export function jobsApp(deps: { conn: Conn }) {
  return {
    /** The account's API jobs, newest first, one page (filter by kind and status). */
    list(actor: Actor, filter: JobListFilter) {
      return listJobs(deps.conn, actor.account.userId, filter);
    },
    /** One API job of the account; any other is 404 not_found. */
    get(actor: Actor, jobId: string) {
      return getJob(deps.conn, actor.account.userId, jobId);
    },
  };
}

export type JobsApp = ReturnType<typeof jobsApp>;

import type { DbConn } from "../db/conn.ts";
import type { Clock } from "../lib/time.ts";
import type { JobControl } from "./scheduler.ts";
import { cancelUnfinished } from "./store.ts";

/**
 * The jobs of an API node (--role api), which runs none: a job queued here reaches a worker node
 * through the queue (pg-boss), so there is nothing to wake; a cancel is written to the jobs table,
 * and the worker node running the job stops its step when it next renews its claim (claims-store.ts).
 */
export function jobsRunElsewhere(conn: DbConn, clock: Clock): JobControl {
  return {
    wake() {},
    async cancel(jobIds) {
      if (jobIds.length) await cancelUnfinished(conn, jobIds, clock.now());
    },
  };
}

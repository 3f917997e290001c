import { createHash } from "node:crypto";
import { PgBoss } from "pg-boss";
import type { Queryable } from "../db/client.ts";
import { pgExecutorOf } from "../db/sql.ts";

/** A queued job as the workers are told of it. */
export interface JobAnnouncement {
  id: string;
  kind: string;
  /** How long the whole job may run before the queue takes it back (scaled to its audio). */
  expireInSeconds: number;
}

/**
 * How a job written to the jobs table reaches a worker. On SQLite the table is the queue: the
 * in-process scheduler reads it, so announcing is nothing. On PostgreSQL it is pg-boss (one queue
 * per job kind), told in the very transaction that writes the jobs row: a rolled-back meeting
 * leaves no queued message, a committed one always has its message.
 */
export interface JobQueue {
  announce(q: Queryable, job: JobAnnouncement): Promise<void>;
}

/**
 * The pg-boss message id of a job: derived from the job's id (a UUID made from its hash), so the
 * same job announced twice is one message (pg-boss ignores a second insert of an id).
 */
export function messageIdOf(jobId: string): string {
  const hex = createHash("sha256").update(`verbatim-job:${jobId}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** SQLite's queue: the jobs table itself. */
export const JOBS_TABLE_QUEUE: JobQueue = {
  async announce() {},
};

/** A worker that missed this many seconds of heartbeats has lost its job; another worker gets it. */
export const HEARTBEAT_SECONDS = 15;
/**
 * Tries pg-boss gives one message, and the pause between them. A "not now" (every worker of the
 * node busy, the job still claimed by a node that died) is a try too, so the limit is high: a
 * message waits its turn in a busy cluster for about an hour before it is given up, and even then
 * the schedulers' sweep of the jobs table still finds its job.
 */
const RETRY_LIMIT = 3600;
const RETRY_DELAY_SECONDS = 1;

export interface PgBossQueueOptions {
  url: string;
  /** pg-boss's own connections on this node (polling, heartbeats, maintenance). */
  poolSize?: number;
  /** Maintenance (expiring, retrying, archiving) runs on worker nodes; API nodes only send. */
  supervise: boolean;
  log(line: string): void;
}

/**
 * pg-boss as the queue between API nodes and worker nodes. Each job kind is a queue; a message
 * carries only the job's id (the jobs table holds everything else, and says which step comes
 * next). A worker holds a message while it runs the job and heartbeats it; when the heartbeat
 * stops (the worker died) or the job outlives its expiry, pg-boss aborts the holder's signal and
 * hands the message to another worker, which resumes the job from its next step.
 */
export class PgBossQueue implements JobQueue {
  private readonly boss: PgBoss;
  private started = false;

  constructor(private readonly options: PgBossQueueOptions) {
    this.boss = new PgBoss({
      connectionString: options.url,
      max: options.poolSize ?? 4,
      supervise: options.supervise,
      schedule: false,
      application_name: "verbatim-queue",
    });
    // pg-boss reports connection trouble as events; they must not end the process.
    this.boss.on("error", (error) => options.log(`the job queue (pg-boss) reported: ${error.message}`));
  }

  /** Starts pg-boss (its schema migrated under its own advisory lock) and makes sure each kind has its queue. */
  async start(kinds: readonly string[]): Promise<void> {
    await this.boss.start();
    this.started = true;
    for (const kind of kinds) {
      if (await this.boss.getQueue(kind)) continue;
      try {
        await this.boss.createQueue(kind, { heartbeatSeconds: HEARTBEAT_SECONDS, retryLimit: RETRY_LIMIT, retryDelay: RETRY_DELAY_SECONDS });
      } catch (error) {
        // Another node created it between our look and our create.
        if (!(await this.boss.getQueue(kind))) throw error;
      }
    }
  }

  async announce(q: Queryable, job: JobAnnouncement): Promise<void> {
    await this.boss.send(job.kind, { jobId: job.id }, { db: pgExecutorOf(q), id: messageIdOf(job.id), expireInSeconds: job.expireInSeconds });
  }

  /**
   * Runs `handler` for each message of `kind`, at most `concurrency` at once on this node. The
   * handler's signal is aborted when the job is taken back (heartbeat lost, expired, stopping);
   * a handler that throws has the message retried after a short delay.
   */
  async work(kind: string, concurrency: number, handler: (jobId: string, signal: AbortSignal) => Promise<void>): Promise<void> {
    await this.boss.work<{ jobId: string }>(kind, { localConcurrency: concurrency, batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([message]) => {
      await handler(message!.data.jobId, message!.signal);
    });
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }
}

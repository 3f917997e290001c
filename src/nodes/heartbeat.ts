import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Conn } from "../db/conn.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { heartbeatNode, NODE_STALE_MS, registerNode, stopNode } from "./store.ts";
import type { NodeRole } from "./table.ts";

/** The file of the data dir that holds the id of the node that last ran on it. */
const NODE_ID_FILE = "node-id";

/**
 * This process as a node of the cluster: registered at start, a heartbeat every third of the
 * staleness limit, marked stopped on a clean stop. Its id is also the lease owner of the jobs it runs.
 */
export class NodePresence {
  readonly id = randomId("node");
  /**
   * The id of the previous run on this data dir, read at start (the data dir keeps the last id).
   * The data dir lock proves that run has ended: the jobs it still claims are nobody's.
   */
  previousId: string | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly conn: Conn,
    readonly role: NodeRole,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
    /** This node's own data dir (locked by it), where its id is kept for the next run. */
    private readonly dataDir?: string,
  ) {}

  async start(): Promise<void> {
    if (this.dataDir) {
      const file = join(this.dataDir, NODE_ID_FILE);
      this.previousId = existsSync(file) ? readFileSync(file, "utf8").trim() || null : null;
      writeFileSync(`${file}.tmp`, `${this.id}\n`, { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
      // A run killed without its clean stop: it is marked stopped now, not when its heartbeat goes stale.
      if (this.previousId) await stopNode(this.conn, this.previousId, this.clock.now());
    }
    await registerNode(this.conn, { id: this.id, role: this.role, hostname: hostname(), pid: process.pid, now: this.clock.now() });
    this.timer = setInterval(() => {
      heartbeatNode(this.conn, this.id, this.clock.now()).catch((error: Error) => this.log(`warning: this node's heartbeat was not written: ${error.message}`));
    }, NODE_STALE_MS / 3);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await stopNode(this.conn, this.id, this.clock.now()).catch(() => {});
  }
}

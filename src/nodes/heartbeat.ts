import { hostname } from "node:os";
import type { Conn } from "../db/conn.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { heartbeatNode, NODE_STALE_MS, registerNode, stopNode } from "./store.ts";
import type { NodeRole } from "./table.ts";

/**
 * This process as a node of the cluster: registered at start, a heartbeat every third of the
 * staleness limit, marked stopped on a clean stop. Its id is also the lease owner of the jobs it runs.
 */
export class NodePresence {
  readonly id = randomId("node");
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly conn: Conn,
    readonly role: NodeRole,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
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

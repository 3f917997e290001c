import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const NODE_ROLES = ["api", "worker", "all"] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

/**
 * The processes serving this database (issue 22): each `serve` registers itself at start and
 * writes a heartbeat while it runs, so an API node can say how many workers are alive (/readyz),
 * the metrics can count jobs per worker node, and the rate limiter can split a key's limit across
 * the API nodes alive. On SQLite there is one, the appliance itself.
 */
export const nodes = sqliteTable(
  "nodes",
  {
    /** node_<random>; also the lease owner on the jobs this node runs. */
    id: text("id").primaryKey(),
    role: text("role", { enum: NODE_ROLES }).notNull(),
    /** The machine's name, for operators telling nodes apart. */
    hostname: text("hostname").notNull(),
    pid: integer("pid").notNull(),
    startedAt: integer("started_at").notNull(),
    heartbeatAt: integer("heartbeat_at").notNull(),
    /** Set when it stopped cleanly; a node that died keeps null and its heartbeat goes stale. */
    stoppedAt: integer("stopped_at"),
  },
  (t) => [index("nodes_heartbeat").on(t.heartbeatAt)],
);

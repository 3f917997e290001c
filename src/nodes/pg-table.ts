// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { NODE_ROLES } from "./table.ts";

export const nodes = pgTable(
  "nodes",
  {
    id: text("id").primaryKey(),
    role: text("role", { enum: NODE_ROLES }).notNull(),
    hostname: text("hostname").notNull(),
    pid: bigint("pid", { mode: "number" }).notNull(),
    startedAt: bigint("started_at", { mode: "number" }).notNull(),
    heartbeatAt: bigint("heartbeat_at", { mode: "number" }).notNull(),
    stoppedAt: bigint("stopped_at", { mode: "number" }),
  },
  (t) => [index("nodes_heartbeat").on(t.heartbeatAt)],
);

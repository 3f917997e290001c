// The readiness checks on their own: what a PostgreSQL outage says to /readyz, and the count of
// worker nodes an API node reports (issue 22, operations).
import { afterAll, expect, test } from "bun:test";
import { PgConn } from "../db/pg-conn.ts";
import { registerNode, stopNode } from "../nodes/store.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { databaseCheck, migrationsCheck, workersCheck } from "./readiness.ts";

const database = tempDatabase("readiness");
afterAll(() => database.remove());

test("an unreachable PostgreSQL is 'unreachable', never an error naming its host, port or user", async () => {
  // Port 1 on the loopback: nothing listens, the connection is refused at once.
  const conn = new PgConn("postgres://vb_secret_user:vb_secret_pw@127.0.0.1:1/verbatim_prod", { poolSize: 1 });
  try {
    for (const check of [databaseCheck(conn), migrationsCheck(conn), workersCheck(conn, { now: () => Date.now() })]) {
      const result = await check.run();
      expect(result).toEqual({ ready: false, detail: "unreachable" });
    }
  } finally {
    await conn.close();
  }
});

test("the workers check counts worker nodes with a fresh heartbeat: none is not ready, but not required", async () => {
  let now = 1_800_000_000_000;
  const clock = { now: () => now };
  const check = workersCheck(database.conn, clock);
  expect(check.required).toBe(false);
  expect(await check.run()).toEqual({ ready: false, detail: "0 worker nodes alive: jobs wait in the queue until one starts" });

  const node = (id: string, role: "api" | "worker" | "all") => registerNode(database.conn, { id, role, hostname: "h", pid: 1, now });
  await node("node_api", "api");
  expect((await check.run()).ready).toBe(false); // an API node runs no job
  await node("node_w1", "worker");
  await node("node_all", "all");
  expect(await check.run()).toEqual({ ready: true, detail: "2 worker node(s) alive" });
  await stopNode(database.conn, "node_w1", now);
  expect(await check.run()).toEqual({ ready: true, detail: "1 worker node(s) alive" });
  // A node that died keeps its row; its heartbeat goes stale after 30 s.
  now += 31_000;
  expect((await check.run()).ready).toBe(false);
});

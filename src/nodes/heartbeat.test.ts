// A node's run on a data dir remembers the run before it (issue 22): a service killed with kill -9
// and started again on its data dir drops that run's job claims at once instead of waiting out
// their leases (a minute), on PostgreSQL too, and never another node's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { addUser } from "../auth/user-store.ts";
import { run } from "../db/conn.ts";
import { releaseAllLeases } from "../jobs/claims-store.ts";
import { jobs } from "../jobs/table.ts";
import { systemClock } from "../lib/time.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { NodePresence } from "./heartbeat.ts";
import { liveNodes } from "./store.ts";

let database: TempDatabase;
const dataDir = mkdtempSync(join(tmpdir(), "verbatim-node-"));
const presences: NodePresence[] = [];
const started = async () => {
  const node = new NodePresence(database.conn, "all", systemClock, () => {}, dataDir);
  presences.push(node);
  await node.start();
  return node;
};

beforeAll(() => {
  database = tempDatabase("node-presence");
});
afterAll(async () => {
  for (const node of presences) await node.stop();
  await database.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a run knows the run before it on its data dir; that one is no longer counted live", async () => {
  const first = await started();
  expect(first.previousId).toBeNull();
  expect((statSync(join(dataDir, "node-id")).mode & 0o777).toString(8)).toBe("600");
  // Killed: no clean stop. The next run on the data dir names it, and marks it stopped.
  const second = await started();
  expect(second.previousId).toBe(first.id);
  const live = (await liveNodes(database.conn, ["all"], Date.now())).map((n) => n.id);
  expect(live).toEqual([second.id]);
});

test("at start, the previous run's claims are dropped and another node's are kept", async () => {
  const user = await addUser(database.conn, { email: "claims@example.com", name: null, plan: "pro" });
  const job = (id: string, owner: string) => ({
    id,
    userId: user.id,
    kind: "test_kind",
    status: "processing" as const,
    stage: "transcribing",
    progress: 0.5,
    channel: "api" as const,
    nextStep: "transcribe",
    createdAt: 1000,
    leaseOwner: owner,
    leaseExpiresAt: Date.now() + 60_000,
  });
  await run(database.conn, (q) => q.insert(jobs).values([job("job_previous_run", "node_previous"), job("job_other_node", "node_other")]));
  await releaseAllLeases(database.conn, "node_previous");
  const owner = async (id: string) => (await run(database.conn, (q) => q.select({ owner: jobs.leaseOwner }).from(jobs).where(eq(jobs.id, id))))[0]!.owner;
  expect(await owner("job_previous_run")).toBeNull();
  // On SQLite the data dir lock proves no other server shares the database: every claim is dropped.
  // On PostgreSQL another node may be running its job: its claim stays until its lease runs out.
  expect(await owner("job_other_node")).toBe(onPostgres ? "node_other" : null);
});

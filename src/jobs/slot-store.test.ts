import { JOBS_TABLE_QUEUE } from "./pg-boss-store.ts";
import { afterAll, expect, test } from "bun:test";
import { z } from "zod";
import { addUser } from "../auth/user-store.ts";
import { run } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { enqueueJob } from "./queue-store.ts";
import { declareJobKind } from "./kind.ts";
import { assertSlotFree } from "./slot-store.ts";
import { updateJob } from "./store.ts";

const temp = tempDatabase("slots");
afterAll(async () => {
  await temp.remove();
});
const slotJob = declareJobKind({ kind: "test_slot", stages: [], payload: z.object({}) });

test("queued and running jobs hold the plan's slots; jobs queued by another job and ended jobs hold none", async () => {
  const user = await addUser(temp.conn, { email: "slots@example.com", plan: "standard" });
  const queue = (parentJobId?: string) => run(temp.conn, (q) => enqueueJob(q, { userId: user.id, kind: slotJob, firstStep: "x", now: 1, parentJobId, payload: {} }, JOBS_TABLE_QUEUE));
  const slots = { standard: 2 };
  const first = await queue();
  await assertSlotFree(temp.conn, user.id, "standard", slots);
  const second = await queue();
  await queue(first); // a child: no slot
  const refused = await assertSlotFree(temp.conn, user.id, "standard", slots).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).code).toBe("parallel_processing_limit");
  await updateJob(temp.conn, second, { status: "completed" });
  await assertSlotFree(temp.conn, user.id, "standard", slots);
  // A plan the table does not name has one slot.
  await expect(assertSlotFree(temp.conn, user.id, "unknown", slots)).rejects.toBeInstanceOf(ApiError);
});

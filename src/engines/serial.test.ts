import { expect, test } from "bun:test";
import { serialQueue } from "./serial.ts";

test("tasks run one at a time in order, and a failure does not stop the next", async () => {
  const queue = serialQueue();
  const log: string[] = [];
  let running = 0;
  const task = (name: string, ms: number, fail = false) => async () => {
    running++;
    expect(running).toBe(1);
    log.push(`start ${name}`);
    await Bun.sleep(ms);
    log.push(`end ${name}`);
    running--;
    if (fail) throw new Error(name);
    return name;
  };
  const results = await Promise.allSettled([queue.run(task("a", 10)), queue.run(task("b", 1, true)), queue.run(task("c", 1))]);
  expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual(["a", "b", "c"]);
  expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
});

test("idle waits for every task given so far, failed ones included", async () => {
  const queue = serialQueue();
  let done = false;
  void queue.run(async () => Promise.reject(new Error("x"))).catch(() => {});
  void queue.run(async () => {
    await Bun.sleep(5);
    done = true;
  });
  await queue.idle();
  expect(done).toBe(true);
});

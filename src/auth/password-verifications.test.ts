import { expect, test } from "bun:test";
import { PasswordVerifications } from "./password-verifications.ts";

test("one verification in flight per email, a few per address, a bounded queue; beyond a bound refused at once; two run at a time", async () => {
  // A cheap Argon2id hash: what is tested is how many verifications run at once, not their cost.
  const hash = await Bun.password.hash("correct horse battery", { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
  let ran = 0;
  let running = 0;
  let peak = 0;
  const verifications = new PasswordVerifications({ running: 2, waiting: 3, perEmail: 1, perAddress: 2 }, () => ran++);
  expect(verifications.admit("a@firm.example", "ip:1")).not.toBeNull();
  expect(verifications.admit("A@firm.example", "ip:2")).toBeNull(); // the same email
  const tickets = [verifications.admit("b@firm.example", "ip:1"), verifications.admit("c@firm.example", "ip:1")];
  expect(tickets[1]).toBeNull(); // ip:1 holds two already
  const more = ["d", "e", "f", "g"].map((who, i) => verifications.admit(`${who}@firm.example`, `ip:${10 + i}`));
  expect(more.filter(Boolean).length).toBe(3); // 2 running + 3 waiting in all
  expect(verifications.inFlight).toBe(5);

  // Count how many run at once.
  const original = Bun.password.verify;
  const bounded = new PasswordVerifications({ running: 2, waiting: 30, perEmail: 1, perAddress: 100 }, () => ran++);
  Bun.password.verify = (async (...args: Parameters<typeof original>) => {
    running++;
    peak = Math.max(peak, running);
    try {
      return await original(...args);
    } finally {
      running--;
    }
  }) as typeof original;
  try {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => bounded.admit(`u${i}@firm.example`, "ip:1")!.verify(i === 0 ? "correct horse battery" : "wrong", hash)));
    expect(results).toEqual([true, false, false, false, false, false]);
  } finally {
    Bun.password.verify = original;
  }
  expect(peak).toBe(2);
  expect(ran).toBe(6);
  expect(bounded.inFlight).toBe(0);
  expect(bounded.admit("u0@firm.example", "ip:1")).not.toBeNull();
}, 60_000);

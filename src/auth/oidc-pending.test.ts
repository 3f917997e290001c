import { describe, expect, test } from "bun:test";
import { PendingSignIns } from "./oidc-pending.ts";

const limits = { ttlMs: 600_000, perClient: 3, total: 6 };

describe("sign-ins in flight", () => {
  test("taken once, within its time to live and not after", () => {
    const pending = new PendingSignIns<string>(limits);
    pending.add("s1", "ip:a", "one", 0);
    pending.add("s2", "ip:a", "two", 0);
    expect(pending.take("s1", 599_999)).toBe("one");
    expect(pending.take("s1", 599_999)).toBeUndefined();
    expect(pending.take("s2", 600_000)).toBeUndefined();
    expect(pending.size).toBe(0);
  });

  test("expired entries are dropped at the next start, whoever starts it", () => {
    const pending = new PendingSignIns<string>(limits);
    for (let i = 0; i < 3; i++) pending.add(`old${i}`, `ip:${i}`, "old", 0);
    pending.add("new", "ip:9", "new", 600_000);
    expect(pending.size).toBe(1);
  });

  test("a client's starts push out its own oldest, never another client's", () => {
    const pending = new PendingSignIns<string>(limits);
    pending.add("victim", "ip:v", "victim", 0);
    for (let i = 0; i < 50; i++) pending.add(`flood${i}`, "ip:attacker", "flood", i);
    expect(pending.size).toBe(4);
    expect(pending.take("flood46", 100)).toBeUndefined();
    expect(pending.take("flood49", 100)).toBe("flood");
    expect(pending.take("victim", 100)).toBe("victim");
  });

  test("when all are full, the client holding the most loses its oldest; one with a single sign-in keeps it", () => {
    const pending = new PendingSignIns<string>(limits);
    pending.add("victim", "ip:v", "victim", 0);
    // Two clients fill the rest, then keep starting: the total stays at 6, the victim's stays.
    for (let i = 0; i < 40; i++) pending.add(`flood${i}`, `ip:attacker${i % 2}`, "flood", 1 + i);
    expect(pending.size).toBe(6);
    expect(pending.take("victim", 100)).toBe("victim");
    // Only when every client holds one does the oldest of them go.
    const spread = new PendingSignIns<string>(limits);
    for (let i = 0; i < 7; i++) spread.add(`s${i}`, `ip:${i}`, "x", i);
    expect(spread.size).toBe(6);
    expect(spread.take("s0", 10)).toBeUndefined();
    expect(spread.take("s1", 10)).toBe("x");
  });
});

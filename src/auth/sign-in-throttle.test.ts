import { expect, test } from "bun:test";
import { ADDRESS_FAILURES_WINDOW_MS, EMAIL_FAILURES_WINDOW_MS, MAX_SIGN_IN_DELAY_MS, SignInThrottle } from "./sign-in-throttle.ts";

const MINUTE = 60_000;

test("after 5 failures for one email the next attempt waits a minute, from any address; each further failure doubles it, up to 15 minutes", () => {
  const throttle = new SignInThrottle();
  let now = 1_000_000;
  for (let i = 0; i < 5; i++) {
    expect(throttle.waitMs("Victim@firm.example", "ip:198.51.100.1/32", now)).toBe(0);
    throttle.begin("victim@firm.example", "ip:198.51.100.1/32", now);
  }
  expect(throttle.waitMs("victim@firm.example", "ip:203.0.113.7/32", now)).toBe(MINUTE);
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    now += throttle.waitMs("victim@firm.example", "ip:198.51.100.1/32", now);
    throttle.begin("victim@firm.example", "ip:198.51.100.1/32", now);
    waits.push(throttle.waitMs("victim@firm.example", "ip:203.0.113.7/32", now));
  }
  expect(waits).toEqual([2 * MINUTE, 4 * MINUTE, 8 * MINUTE, MAX_SIGN_IN_DELAY_MS, MAX_SIGN_IN_DELAY_MS, MAX_SIGN_IN_DELAY_MS]);
});

test("an attempt counts before its check; a success takes it back and forgives the email, not the address", () => {
  const throttle = new SignInThrottle({ perEmail: 2, perAddress: 3 });
  const now = 5_000_000;
  throttle.begin("a@firm.example", "ip:x", now);
  const pending = throttle.begin("a@firm.example", "ip:x", now);
  expect(throttle.waitMs("a@firm.example", "ip:y", now)).toBeGreaterThan(0);
  pending.succeeded();
  expect(throttle.waitMs("a@firm.example", "ip:y", now)).toBe(0);
  throttle.begin("b@firm.example", "ip:x", now);
  throttle.begin("c@firm.example", "ip:x", now);
  // a's first failure and b's and c's: three from ip:x, whatever the email.
  expect(throttle.waitMs("d@firm.example", "ip:x", now)).toBeGreaterThan(0);
  expect(throttle.waitMs("d@firm.example", "ip:z", now)).toBe(0);
});

test("an email's failures are forgotten after a day, an address's after an hour", () => {
  const throttle = new SignInThrottle();
  for (let i = 0; i < 5; i++) throttle.begin("a@firm.example", `ip:${i}`, 0);
  for (let i = 0; i < 20; i++) throttle.begin(`${i}@firm.example`, "ip:x", 0);
  expect(throttle.waitMs("a@firm.example", "ip:y", 1)).toBeGreaterThan(0);
  expect(throttle.waitMs("b@firm.example", "ip:x", 1)).toBeGreaterThan(0);
  // The waits are over long before the failures are forgotten; one more failure brings a longer one.
  expect(throttle.waitMs("b@firm.example", "ip:x", ADDRESS_FAILURES_WINDOW_MS - 1)).toBe(0);
  throttle.begin("b@firm.example", "ip:x", ADDRESS_FAILURES_WINDOW_MS - 1);
  expect(throttle.waitMs("z@firm.example", "ip:x", ADDRESS_FAILURES_WINDOW_MS - 1)).toBe(2 * MINUTE);
  expect(throttle.waitMs("z@firm.example", "ip:x", ADDRESS_FAILURES_WINDOW_MS + MINUTE)).toBe(0);
  throttle.begin("a@firm.example", "ip:y", EMAIL_FAILURES_WINDOW_MS - 1);
  expect(throttle.waitMs("a@firm.example", "ip:q", EMAIL_FAILURES_WINDOW_MS - 1)).toBe(2 * MINUTE);
  expect(throttle.waitMs("a@firm.example", "ip:q", EMAIL_FAILURES_WINDOW_MS + 1)).toBe(0);
});

test("a browser known to the account skips the wait strangers caused for its email, and has its own count", () => {
  const throttle = new SignInThrottle();
  for (let i = 0; i < 8; i++) throttle.begin("user@firm.example", `ip:stranger${i}`, 0);
  expect(throttle.waitMs("user@firm.example", "ip:home", 1)).toBeGreaterThan(0);
  expect(throttle.waitMs("user@firm.example", "ip:home", 1, "b:laptop")).toBe(0);
  for (let i = 0; i < 5; i++) throttle.begin("user@firm.example", "ip:home", 1, "b:laptop");
  expect(throttle.waitMs("user@firm.example", "ip:home", 2, "b:laptop")).toBe(MINUTE - 1);
  expect(throttle.waitMs("user@firm.example", "ip:home", 2, "b:phone")).toBe(0);
});

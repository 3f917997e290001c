import { expect, test } from "bun:test";
import { clampedRerun, planSpeakers } from "./speakers.ts";

test("planSpeakers", () => {
  expect(planSpeakers(null, null, true)).toEqual({ kind: "single" });
  expect(planSpeakers(null, 1, false)).toEqual({ kind: "single" });
  expect(planSpeakers(3, 3, false)).toEqual({ kind: "exact", count: 3 });
  expect(planSpeakers(null, null, false)).toEqual({ kind: "range", min: 1, max: Infinity });
  expect(planSpeakers(2, 5, false)).toEqual({ kind: "range", min: 2, max: 5 });
  // An explicit minimum above the participant count wins.
  expect(planSpeakers(4, 3, false)).toEqual({ kind: "exact", count: 4 });
  // Nonsense bounds are ignored.
  expect(planSpeakers(0, -2, false)).toEqual({ kind: "range", min: 1, max: Infinity });
});

test("clampedRerun", () => {
  const range = { kind: "range", min: 2, max: 3 } as const;
  expect(clampedRerun(range, 4)).toBe(3);
  expect(clampedRerun(range, 1)).toBe(2);
  expect(clampedRerun(range, 2)).toBeNull();
  expect(clampedRerun(range, 0)).toBeNull();
  expect(clampedRerun({ kind: "exact", count: 3 }, 5)).toBeNull();
});

// The order in which an account's tables are emptied on PostgreSQL, whose foreign keys are
// checked statement by statement: a table's rows go before the rows its keys point at.
import { expect, test } from "bun:test";
import { childrenFirst } from "./store.ts";

test("a table comes before the tables its foreign keys name, ties by name", () => {
  const order = childrenFirst(
    ["jobs", "usage_reservations", "api_keys", "webhook_endpoints", "webhook_deliveries"],
    [
      { child: "usage_reservations", parent: "jobs" },
      { child: "webhook_deliveries", parent: "webhook_endpoints" },
      // Keys naming a table outside the list (users, meetings) do not order the list.
      { child: "jobs", parent: "users" },
      { child: "api_keys", parent: "users" },
    ],
  );
  expect(order).toEqual(["api_keys", "usage_reservations", "webhook_deliveries", "jobs", "webhook_endpoints"]);
});

test("a chain is followed to its end, whatever the names", () => {
  expect(childrenFirst(["a", "b", "c"], [{ child: "a", parent: "b" }, { child: "b", parent: "c" }])).toEqual(["a", "b", "c"]);
  expect(childrenFirst(["a", "b", "c"], [{ child: "c", parent: "b" }, { child: "b", parent: "a" }])).toEqual(["c", "b", "a"]);
});

test("a table's key naming itself (a parent job) does not hold it back", () => {
  expect(childrenFirst(["jobs", "events"], [{ child: "jobs", parent: "jobs" }])).toEqual(["events", "jobs"]);
});

test("a loop between two tables is refused, naming them", () => {
  expect(() =>
    childrenFirst(
      ["a", "b", "c"],
      [
        { child: "a", parent: "b" },
        { child: "b", parent: "a" },
      ],
    ),
  ).toThrow("the foreign keys between a, b form a loop");
});

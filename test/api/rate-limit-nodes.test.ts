// Rate limits across API nodes (issue 22, item 3): on PostgreSQL each API node enforces its share
// of a key's limit, ceil(limit / live API nodes) (docs/decisions.md), so a proxy spreading a key's
// requests over the nodes holds it to about its limit. On SQLite one process enforces all of it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { expectProblem, startServer, type TestServer } from "../helpers/server.ts";
import { onPostgres } from "../support/postgres.ts";

const LIMITS = ["--rate-limits", "pro=5,anonymous=1000"];
let a: TestServer;
let b: TestServer | undefined;

beforeAll(async () => {
  a = await startServer({ args: onPostgres ? ["--role", "api", ...LIMITS] : LIMITS });
  // The second API node, on the first one's database; it counts both API nodes when it starts.
  if (onPostgres) b = await startServer({ args: ["--role", "api", "--database-url", a.databaseUrl!, ...LIMITS] });
});
afterAll(async () => {
  await b?.stop();
  await a.stop();
});

async function spend(server: TestServer, times: number): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < times; i++) responses.push(await server.api("/api/v1/me", { key: a.adminKey }));
  return responses;
}

test.skipIf(onPostgres)("on SQLite the one process enforces the whole limit", async () => {
  const responses = await spend(a, 6);
  expect(responses.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(responses[0]!.headers.get("x-ratelimit-limit")).toBe("5");
  await expectProblem(responses[5]!, 429, "rate_limited");
});

test.skipIf(!onPostgres)("with two API nodes alive each enforces ceil(5 / 2) = 3 of a key's requests; the two together admit 6", async () => {
  const onB = await spend(b!, 4);
  expect(onB.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
  expect(onB[0]!.headers.get("x-ratelimit-limit")).toBe("3");
  expect(onB[2]!.headers.get("x-ratelimit-remaining")).toBe("0");
  await expectProblem(onB[3]!, 429, "rate_limited");
  // Node A learns of B within its 10 s recount; until then it enforces the whole limit. Either
  // way the key's window there is its own: B's refusals took nothing from it.
  const deadline = Date.now() + 15_000;
  let limit = "";
  while (Date.now() < deadline) {
    limit = (await a.api("/healthz", { key: a.adminKey })).headers.get("x-ratelimit-limit") ?? "";
    if (limit === "3") break;
    await Bun.sleep(500);
  }
  expect(limit).toBe("3");
  const onA = await spend(a, 4);
  expect(onA.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
  await expectProblem(onA[3]!, 429, "rate_limited");
});

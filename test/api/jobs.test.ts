import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { run } from "../../src/db/conn.ts";
import { jobs } from "../../src/jobs/table.ts";
import { randomId } from "../../src/lib/ids.ts";
import { createUserWithKey, expectProblem, startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let ownerKey: string;
let otherKey: string;
const T0 = Date.parse("2026-11-01T00:00:00Z");
const apiJobIds: string[] = [];
let webappJobId: string;

beforeAll(async () => {
  server = await startServer({ args: ["--rate-limits", "pro=100000"] });
  ownerKey = await createUserWithKey(server, "owner@example.com");
  otherKey = await createUserWithKey(server, "other@example.com");
  const conn = server.conn();
  const owner = (await getUserByEmail(conn, "owner@example.com"))!;
  const rows: (typeof jobs.$inferInsert)[] = [];
  for (let i = 0; i < 250; i++) {
    // Groups of five share a creation time, so the id must break ties for pages to be exact.
    const id = randomId("job");
    apiJobIds.push(id);
    rows.push({
      id,
      userId: owner.id,
      kind: i % 3 === 0 ? ("document_generation" as const) : ("meeting_processing" as const),
      status: i % 2 === 0 ? ("completed" as const) : ("processing" as const),
      stage: i % 2 === 0 ? ("done" as const) : ("transcribing" as const),
      progress: i % 2 === 0 ? 1 : 0.5,
      channel: "api" as const,
      metadata: { n: i },
      createdAt: T0 + Math.floor(i / 5) * 1000,
    });
  }
  webappJobId = randomId("job");
  rows.push({ ...rows[0]!, id: webappJobId, channel: "webapp" as const, createdAt: T0 + 999_999 });
  await run(conn, (q) => q.insert(jobs).values(rows));
});

afterAll(async () => {
  await server.stop();
});

async function allPages(query: string, key = ownerKey) {
  const seen: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await server.api(`/api/v1/jobs?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    expect(response.status).toBe(200);
    const page = (await response.json()) as any;
    seen.push(...page.data);
    expect(page.has_more).toBe(page.next_cursor !== null);
    cursor = page.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  return { seen, pages };
}

describe("GET /v1/jobs pagination", () => {
  test("walks 250 rows in pages of 30 with no duplicates or gaps, newest first", async () => {
    const { seen, pages } = await allPages("limit=30");
    expect(pages).toBe(9);
    const ids = seen.map((j) => j.id);
    expect(new Set(ids).size).toBe(250);
    expect([...ids].sort()).toEqual([...apiJobIds].sort());
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1];
      const b = seen[i];
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
    }
  });

  test("the default page is 20 and the largest is 100", async () => {
    const first = (await (await server.api("/api/v1/jobs", { key: ownerKey })).json()) as any;
    expect(first.data).toHaveLength(20);
    const big = (await (await server.api("/api/v1/jobs?limit=100", { key: ownerKey })).json()) as any;
    expect(big.data).toHaveLength(100);
    expect(big.has_more).toBe(true);
  });

  test("filters combine with pagination", async () => {
    const { seen } = await allPages("limit=7&kind=document_generation&status=completed");
    const expected = Array.from({ length: 250 }, (_, i) => i).filter((i) => i % 3 === 0 && i % 2 === 0);
    expect(seen).toHaveLength(expected.length);
    expect(seen.every((j) => j.kind === "document_generation" && j.status === "completed")).toBe(true);
    expect(seen.map((j) => j.metadata.n).sort((a, b) => a - b)).toEqual(expected);
  });

  test("webapp jobs are never listed nor shown", async () => {
    const { seen } = await allPages("limit=100");
    expect(seen.some((j) => j.id === webappJobId)).toBe(false);
    await expectProblem(await server.api(`/api/v1/jobs/${webappJobId}`, { key: ownerKey }), 404, "not_found");
  });

  test("bad limits, kinds and cursors answer 400 validation_error naming the field", async () => {
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=abc", "limit"],
      ["kind=transcription", "kind"],
      ["status=running", "status"],
      ["cursor=not-a-cursor!", "cursor"],
      ["cursor=" + Buffer.from('{"v":1,"k":["x"]}').toString("base64url"), "cursor"],
      ["cursor=" + Buffer.from("garbage").toString("base64url"), "cursor"],
      ["cursor=%27%20OR%201%3D1%20--", "cursor"],
    ]) {
      const body = await expectProblem(await server.api(`/api/v1/jobs?${query}`, { key: ownerKey }), 400, "validation_error");
      expect((body.errors as any[]).map((e) => e.field)).toEqual([field]);
    }
  });
});

describe("GET /v1/jobs/{id}", () => {
  test("returns the full job object", async () => {
    const response = await server.api(`/api/v1/jobs/${apiJobIds[0]}`, { key: ownerKey });
    expect(response.status).toBe(200);
    const job = (await response.json()) as any;
    expect(job).toMatchObject({
      id: apiJobIds[0],
      object: "job",
      kind: "document_generation",
      status: "completed",
      stage: "done",
      progress: 1,
      metadata: { n: 0 },
      error: null,
      started_at: null,
      created_at: "2026-11-01T00:00:00.000Z",
    });
  });

  test("another account's job is 404, never 403, and its list is empty", async () => {
    await expectProblem(await server.api(`/api/v1/jobs/${apiJobIds[0]}`, { key: otherKey }), 404, "not_found");
    const list = (await (await server.api("/api/v1/jobs", { key: otherKey })).json()) as any;
    expect(list).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  test("jobs need a credential but no scope", async () => {
    await expectProblem(await server.api("/api/v1/jobs"), 401, "unauthorized");
    const usageOnly = await createUserWithKey(server, "usage@example.com", "read:usage");
    expect((await server.api("/api/v1/jobs", { key: usageOnly })).status).toBe(200);
  });
});

// The jobs' use cases against a real store: an account's API jobs, listed and shown; web app
// jobs and other accounts' jobs never; each kind's own fields shown from its payload.
import { JOBS_TABLE_QUEUE } from "./pg-boss-store.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Actor } from "../auth/actor.ts";
import { addUser } from "../auth/user-store.ts";
import { run } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { jobsApp } from "./app.ts";
import { enqueueJob } from "./queue-store.ts";
import { declareJobKind, registerJobKinds, registeredJobKinds } from "./kind.ts";
import { jobSchemas } from "./schema.ts";

const plainJob = declareJobKind({ kind: "test_plain", stages: ["plain"], payload: z.object({ transcribeOnly: z.boolean().optional(), documentId: z.string().optional(), note: z.string().optional() }) });
registerJobKinds([plainJob]);

let temp: TempDatabase;
let owner: Actor;
let other: Actor;
const ids = { first: "", second: "", webapp: "", others: "" };

beforeAll(async () => {
  temp = tempDatabase("jobs-app");
  const a = await addUser(temp.conn, { email: "owner@example.com", plan: "pro" });
  const b = await addUser(temp.conn, { email: "other@example.com", plan: "free" });
  owner = { account: { userId: a.id, plan: "pro" }, channel: "api", credential: { type: "web_session", id: "s" } };
  other = { account: { userId: b.id, plan: "free" }, channel: "api", credential: { type: "web_session", id: "s" } };
  await run(temp.conn, async (q) => {
    ids.first = await enqueueJob(q, { userId: a.id, kind: plainJob, firstStep: "x", now: 1000, payload: { transcribeOnly: true, note: "kept" }, metadata: { case: "A-1" } }, JOBS_TABLE_QUEUE);
    ids.second = await enqueueJob(q, { userId: a.id, kind: plainJob, firstStep: "x", now: 2000, payload: { documentId: "doc_1" } }, JOBS_TABLE_QUEUE);
    ids.webapp = await enqueueJob(q, { userId: a.id, kind: plainJob, firstStep: "x", now: 3000, channel: "webapp", payload: {} }, JOBS_TABLE_QUEUE);
    ids.others = await enqueueJob(q, { userId: b.id, kind: plainJob, firstStep: "x", now: 4000, payload: {} }, JOBS_TABLE_QUEUE);
  });
});
afterAll(async () => {
  await temp.remove();
});

test("list: the account's API jobs, newest first, filtered by kind and status; web app jobs never", async () => {
  const app = jobsApp({ conn: temp.conn });
  const page = await app.list(owner, { limit: 10 });
  expect(page.data.map((j) => j.id)).toEqual([ids.second, ids.first]);
  expect(page.has_more).toBe(false);
  expect((await app.list(owner, { limit: 10, kind: "test_plain", status: "queued" })).data).toHaveLength(2);
  expect((await app.list(owner, { limit: 10, status: "completed" })).data).toEqual([]);
  expect((await app.list(other, { limit: 10 })).data.map((j) => j.id)).toEqual([ids.others]);
});

test("get: one API job of the account; another account's or a web app job is 404", async () => {
  const app = jobsApp({ conn: temp.conn });
  const job = await app.get(owner, ids.first);
  expect(job).toMatchObject({
    id: ids.first,
    object: "job",
    kind: "test_plain",
    status: "queued",
    stage: "queued",
    progress: 0,
    transcribe_only: true,
    document_id: null,
    document_templates: null,
    document_job_ids: null,
    metadata: { case: "A-1" },
  });
  expect((await app.get(owner, ids.second)).document_id).toBe("doc_1");
  // The payload's own keys stay the kind's: only SPEC's job fields show.
  expect(Object.keys(job)).not.toContain("note");
  for (const [actor, id] of [[other, ids.first], [owner, ids.webapp], [owner, ids.others]] as const) {
    const refused = await app.get(actor, id!).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe("not_found");
  }
});

test("a job is queued only with a payload its kind accepts", async () => {
  const refused = await run(temp.conn, (q) =>
    enqueueJob(q, { userId: owner.account.userId, kind: plainJob, firstStep: "x", now: 1, payload: { note: 3 } as never }, JOBS_TABLE_QUEUE),
  ).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(z.ZodError);
});

test("the job schemas take the registered kinds and their stages, in registration order", () => {
  const { listJobsQuery, jobSchema } = jobSchemas();
  expect(registeredJobKinds().map((k) => k.kind)).toContain("test_plain");
  expect(listJobsQuery.safeParse({ limit: 5, kind: "test_plain" }).success).toBe(true);
  expect(listJobsQuery.safeParse({ limit: 5, kind: "transcription" }).success).toBe(false);
  const stages = jobSchema.shape.stage.unwrap().options;
  expect(stages).toContain("plain");
  expect([stages[0], stages.at(-1)]).toEqual(["queued", "done"]);
  const second = declareJobKind({ kind: "test_second", stages: ["plain", "later"], payload: z.object({}) });
  registerJobKinds([second]);
  const again = jobSchemas();
  expect(again.jobSchema.shape.kind.options.slice(-2)).toEqual(["test_plain", "test_second"]);
  expect(again.jobSchema.shape.stage.unwrap().options.slice(-3)).toEqual(["plain", "later", "done"]);
  expect(() => registerJobKinds([{ kind: "test_plain", stages: [] }])).toThrow("two job kinds are named test_plain");
});

test("jobs/ names no job kind: kinds declare themselves from their own folders", () => {
  const kinds = ["meeting_processing", "document_generation", "transcribe_only", "report_only", "document_templates", "document_job_ids"];
  const files = readdirSync(import.meta.dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
  // Only the API's job object (schema.ts) carries SPEC's per-kind wire fields, and query.ts renders them.
  const offenders = files
    .filter((f) => f !== "schema.ts" && f !== "query.ts")
    .flatMap((f) => kinds.filter((k) => readFileSync(join(import.meta.dir, f), "utf8").includes(k)).map((k) => `${f}: ${k}`));
  expect(offenders).toEqual([]);
  for (const f of ["schema.ts", "query.ts"]) {
    const text = readFileSync(join(import.meta.dir, f), "utf8");
    expect(text).not.toContain("meeting_processing");
    expect(text).not.toContain("document_generation");
  }
});

// The account glossary over real HTTP (issue 23 item 2): /v1/vocabulary's CRUD, its bounds and
// refusals (scopes, another account's ids, duplicates), a meeting's own vocabulary, the prompt
// that reaches the transcriber (the test double says it first), and spoken variants replaced in
// the stored transcript, each change a correction by the system in the history.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { eventually } from "../helpers/processes.ts";
import { createUserWithKey, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);
type Json = any;

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
let server: TestServer;
let key: string;
let readerKey: string;
let otherKey: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
  key = await createUserWithKey(server, "glossary@firm.example");
  otherKey = await createUserWithKey(server, "outsider@firm.example");
  const reader = await server.admin("key", "create", "--email", "glossary@firm.example", "--name", "reader", "--scopes", "read:meetings", "--json");
  readerKey = (JSON.parse(reader.stdout) as { key: string }).key;
});
afterAll(() => server.stop());

const create = (body: unknown, withKey = key) => server.api("/api/v1/vocabulary", { method: "POST", key: withKey, json: body });
const patch = (id: string, body: unknown, withKey = key) => server.api(`/api/v1/vocabulary/${id}`, { method: "PATCH", key: withKey, json: body });
const remove = (id: string, withKey = key) => server.api(`/api/v1/vocabulary/${id}`, { method: "DELETE", key: withKey });
const list = async (withKey = key): Promise<Json[]> => ((await (await server.api("/api/v1/vocabulary", { key: withKey })).json()) as Json).data;

/** The meeting once its processing ended (completed or failed). */
const waitCompleted = (id: string, withKey = key): Promise<Json> =>
  eventually(`meeting ${id} ended`, async () => {
    const meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key: withKey })).json()) as Json;
    return meeting.status === "completed" || meeting.status === "failed" ? meeting : null;
  }, 60_000);

test("a term is created, listed, changed and deleted; variants lose their case duplicates and the term itself", async () => {
  const created = await create({ term: "  Kubernetes ", variants: ["cooper netties", "Cooper  Netties", "kubernetes", "Kube Ernie"] });
  expect(created.status).toBe(201);
  const term = (await created.json()) as Json;
  expect(term).toMatchObject({ object: "vocabulary_term", term: "Kubernetes", variants: ["cooper netties", "Kube Ernie"] });
  expect(term.id).toMatch(/^voc_\d+$/);
  expect((await list()).map((t) => t.term)).toEqual(["Kubernetes"]);
  expect((await list(readerKey)).map((t) => t.id)).toEqual([term.id]);

  const changed = await patch(term.id, { variants: ["cube entities"] });
  expect(changed.status).toBe(200);
  expect((await changed.json()) as Json).toMatchObject({ term: "Kubernetes", variants: ["cube entities"] });
  expect(((await (await patch(term.id, { term: "K8s Platform" })).json()) as Json).term).toBe("K8s Platform");

  expect((await remove(term.id)).status).toBe(204);
  expect(await list()).toEqual([]);
  await expectProblem(await remove(term.id), 404, "not_found");
});

test("bounds and shapes: lengths, counts, empty and unknown fields are 400 problems naming the field", async () => {
  const refused = async (body: unknown, field: string) => {
    const problem = (await expectProblem(await create(body), 400, "validation_error")) as Json;
    expect(problem.errors.map((e: Json) => e.field)).toContain(field);
  };
  await refused({ term: "x".repeat(101) }, "term");
  await refused({ term: "   " }, "term");
  await refused({ term: "---" }, "term");
  await refused({ term: "Acme", variants: Array.from({ length: 11 }, (_, i) => `variant ${i}`) }, "variants");
  await refused({ term: "Acme", variants: ["y".repeat(101)] }, "variants[0]");
  await refused({ term: "Acme", colour: "red" }, "colour");
  await expectProblem(await patch("voc_1", {}), 400, "validation_error");
  // A path id that is no term id names nothing the caller owns: 404, as for another account's.
  await expectProblem(await server.api("/api/v1/vocabulary/voc_abc", { method: "DELETE", key }), 404, "not_found");
  // 100 characters as people count them: 100 CJK letters beyond the BMP are one term, not 200 UTF-16 units.
  expect((await create({ term: "𠀀".repeat(100) })).status).toBe(201);
  await refused({ term: "𠀁".repeat(101) }, "term");
  for (const t of await list()) await remove(t.id);
});

test("the same term in another case is 409, on create and on rename; nothing changes", async () => {
  const acme = (await (await create({ term: "Acme Corp", variants: ["ack me"] })).json()) as Json;
  const beta = (await (await create({ term: "Beta" })).json()) as Json;
  const problem = (await expectProblem(await create({ term: "ACME corp" }), 409, "vocabulary_term_exists")) as Json;
  expect(problem.detail).toContain(acme.id);
  await expectProblem(await patch(beta.id, { term: "acme CORP" }), 409, "vocabulary_term_exists");
  expect((await list()).filter((t) => t.term.toLowerCase() === "acme corp")).toHaveLength(1);
  // Renaming a term to its own name in another case is no duplicate.
  expect(((await (await patch(acme.id, { term: "ACME Corp" })).json()) as Json).term).toBe("ACME Corp");
  for (const t of await list()) await remove(t.id);
});

test("scopes and accounts: read:meetings reads but does not write; another account's ids are 404 and its terms unseen", async () => {
  await expectProblem(await create({ term: "Nope" }, readerKey), 403, "insufficient_scope");
  const mine = (await (await create({ term: "Private Term" })).json()) as Json;
  await expectProblem(await patch(mine.id, { term: "Taken" }, otherKey), 404, "not_found");
  await expectProblem(await remove(mine.id, otherKey), 404, "not_found");
  await expectProblem(await patch(mine.id, { term: "Taken" }, readerKey), 403, "insufficient_scope");
  expect(await list(otherKey)).toEqual([]);
  // The other account may hold the same term: glossaries are per account.
  expect((await create({ term: "Private Term" }, otherKey)).status).toBe(201);
  expect((await list()).map((t) => t.term)).toEqual(["Private Term"]);
  await expectProblem(await server.api("/api/v1/vocabulary"), 401, "unauthorized");
  await remove(mine.id);
});

test("a glossary holds at most 500 terms: the 501st is 400 too_many_terms", async () => {
  const full = await createUserWithKey(server, "full@firm.example");
  for (let i = 0; i < 500; i += 25) {
    const batch = await Promise.all(Array.from({ length: 25 }, (_, k) => create({ term: `Term ${i + k}` }, full)));
    expect(batch.every((r) => r.status === 201)).toBe(true);
  }
  const problem = (await expectProblem(await create({ term: "One Too Many" }, full), 400, "validation_error")) as Json;
  expect(problem.errors[0].code).toBe("too_many_terms");
  expect(await list(full)).toHaveLength(500);
});

test("a meeting's vocabulary is bounded, and refused when not a list of terms", async () => {
  const post = (vocabulary: unknown) => server.api("/api/v1/meetings", { method: "POST", key, json: { audio_url: "https://example.com/a.wav", vocabulary } });
  await expectProblem(await post(Array.from({ length: 51 }, (_, i) => `term ${i}`)), 400, "validation_error");
  await expectProblem(await post(["x".repeat(101)]), 400, "validation_error");
  await expectProblem(await post("Acme"), 400, "validation_error");
});

test("a meeting with vocabulary: whisper is prompted with its terms then the account's, and variants end as the term, corrected by the system", async () => {
  const glossary = (await (await create({ term: "Spokane Harbor", variants: ["spoken here"] })).json()) as Json;
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", "Vocabulary meeting");
  // Repeated fields are one term each: a comma inside a term stays.
  form.append("vocabulary", "Smith, Jones LLP");
  form.append("vocabulary", "Acme Widget");
  const created = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  expect(created.status).toBe(202);
  const meetingId = ((await created.json()) as Json).id;
  expect((await waitCompleted(meetingId)).status).toBe("completed");

  const transcript = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key })).json()) as Json;
  // The double says the prompt it was given: the meeting's terms first, the glossary's after.
  expect(transcript.segments[0].text.trim()).toBe("prompt: Smith, Jones LLP, Acme Widget, Spokane Harbor");
  const spoken = transcript.segments.slice(1);
  expect(spoken.length).toBeGreaterThan(1);
  for (const segment of spoken) {
    expect(segment.text).toMatch(/^segment number\d+ Spokane Harbor$/);
    expect(segment.text).not.toContain("spoken here");
  }
  const srt = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=srt`, { key })).text();
  expect(srt).toContain("Spokane Harbor");
  expect(srt).not.toContain("spoken here");

  const corrections = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript/corrections`, { key })).json()) as Json;
  expect(corrections.data).toHaveLength(spoken.length);
  expect(corrections.data[0]).toMatchObject({ version: 1, author: { id: "system", email: null } });
  expect(corrections.data[0].previous_text).toContain("spoken here");
  expect(corrections.data[0].text).toContain("Spokane Harbor");
  // A person's correction after it is the segment's second version.
  const index = corrections.data[0].segment_index;
  const mine = await server.api(`/api/v1/meetings/${meetingId}/transcript/segments/${index}`, { method: "PATCH", key, json: { text: "Spokane Harbor it is" } });
  expect(((await mine.json()) as Json).version).toBe(2);
  // The report was written from the words as stored (the double's minutes quote the first segments).
  const summary = await (await server.api(`/api/v1/meetings/${meetingId}/summary`, { key })).text();
  expect(summary).toContain("segment number0 Spokane Harbor");
  expect(summary).not.toContain("spoken here");
  // Search finds the term, not the variant.
  const found = (await (await server.api("/api/v1/meetings?q=Spokane", { key })).json()) as Json;
  expect(found.data.map((m: Json) => m.id)).toContain(meetingId);
  await remove(glossary.id);
});

test("without any vocabulary nothing is prompted and nothing replaced", async () => {
  const plainKey = await createUserWithKey(server, "plain@firm.example");
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "plain.wav");
  const meetingId = ((await (await server.api("/api/v1/meetings", { method: "POST", key: plainKey, body: form })).json()) as Json).id;
  expect((await waitCompleted(meetingId, plainKey)).status).toBe("completed");
  const transcript = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key: plainKey })).json()) as Json;
  expect(transcript.segments[0].text).not.toContain("prompt:");
  expect(transcript.segments[0].text.trim()).toMatch(/spoken here$/);
  const corrections = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript/corrections`, { key: plainKey })).json()) as Json;
  expect(corrections.data).toEqual([]);
});

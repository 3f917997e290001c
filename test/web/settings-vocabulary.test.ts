// Settings, Vocabulary in the web app over real HTTP (issue 23 item 2): terms added, changed and
// deleted from the page (post/redirect/get, CSRF-checked, in English and French), refusals shown
// on the page, another account's term not found; and a transcript imported as text whose spoken
// variants end as the glossary's terms, in the transcript, its correction history and its report.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { eventually } from "../helpers/processes.ts";
import { queryRow } from "../helpers/query.ts";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);
type Json = any;

const PASSWORD = "correct horse battery";
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000"] });
  key = await createUserWithKey(server, "editor@firm.example");
  await createUserWithKey(server, "nosy@firm.example");
  for (const email of ["editor@firm.example", "nosy@firm.example"]) await server.admin("user", "password", "--email", email, "--password", PASSWORD);
});
afterAll(() => server.stop());

async function signedIn(email = "editor@firm.example") {
  const client = new CookieClient(server.url);
  await client.signIn(email, PASSWORD);
  return { client, csrf: await client.csrfToken("/settings/vocabulary") };
}

const terms = async (): Promise<Json[]> => ((await (await server.api("/api/v1/vocabulary", { key })).json()) as Json).data;

test("a term is added, changed and deleted from Settings, Vocabulary, each time redirected with a notice", async () => {
  const { client, csrf } = await signedIn();
  const empty = await (await client.get("/settings/vocabulary")).text();
  expect(empty).toContain("No terms yet.");
  expect(empty).toContain('href="/settings/vocabulary" aria-current="page"');

  const added = await client.post("/settings/vocabulary", { _csrf: csrf, term: "Kubernetes", variants: "cooper netties\r\n\r\nKube Ernie\r\n" });
  expect(added.status).toBe(303);
  expect(added.headers.get("location")).toBe("/settings/vocabulary?notice=added");
  const [term] = await terms();
  expect(term).toMatchObject({ term: "Kubernetes", variants: ["cooper netties", "Kube Ernie"] });
  const page = await (await client.get("/settings/vocabulary?notice=added")).text();
  expect(page).toContain("The term was added.");
  expect(page).toContain('value="Kubernetes"');
  expect(page).toContain("cooper netties\nKube Ernie</textarea>");
  expect(page).toContain("1 of 500 terms");

  const saved = await client.post(`/settings/vocabulary/${term.id}`, { _csrf: csrf, term: "Kubernetes", variants: "cube entities" });
  expect(saved.headers.get("location")).toBe("/settings/vocabulary?notice=saved");
  expect((await terms())[0].variants).toEqual(["cube entities"]);

  const deleted = await client.post(`/settings/vocabulary/${term.id}/delete`, { _csrf: csrf });
  expect(deleted.headers.get("location")).toBe("/settings/vocabulary?notice=deleted");
  expect(await terms()).toEqual([]);
});

test("refusals come back to the form: a duplicate, too many variants, each said at its field; nothing is stored", async () => {
  const { client, csrf } = await signedIn();
  await client.post("/settings/vocabulary", { _csrf: csrf, term: "Acme" });
  // Issue 25: each refusal comes back to the form (303), what was typed kept, the message at the field.
  const duplicate = await client.post("/settings/vocabulary", { _csrf: csrf, term: "ACME" });
  expect(duplicate.status).toBe(303);
  const duplicatePage = await (await client.follow(duplicate)).text();
  expect(duplicatePage).toContain("already holds this term");
  expect(duplicatePage).toContain('value="ACME"');
  const many = await client.post("/settings/vocabulary", { _csrf: csrf, term: "Beta", variants: Array.from({ length: 11 }, (_, i) => `v${i}`).join("\n") });
  expect(many.status).toBe(303);
  const manyPage = await (await client.follow(many)).text();
  expect(manyPage).toContain("At most 10 variants, one a line");
  expect(manyPage).toContain("v10</textarea>");
  expect((await terms()).map((t) => t.term)).toEqual(["Acme"]);
  for (const t of await terms()) await server.api(`/api/v1/vocabulary/${t.id}`, { method: "DELETE", key });
});

test("without the CSRF token nothing changes (403); another account's term is not found; the page speaks French", async () => {
  const { client, csrf } = await signedIn();
  expect((await client.post("/settings/vocabulary", { term: "Forged" })).status).toBe(403);
  expect(await terms()).toEqual([]);
  await client.post("/settings/vocabulary", { _csrf: csrf, term: "Mine" });
  const [mine] = await terms();

  const nosy = await signedIn("nosy@firm.example");
  expect((await nosy.client.post(`/settings/vocabulary/${mine.id}`, { _csrf: nosy.csrf, term: "Taken" })).status).toBe(404);
  expect((await nosy.client.post(`/settings/vocabulary/${mine.id}/delete`, { _csrf: nosy.csrf })).status).toBe(404);
  expect((await terms()).map((t) => t.term)).toEqual(["Mine"]);
  expect(await (await nosy.client.get("/settings/vocabulary")).text()).not.toContain("Mine");

  await client.post("/settings/language", { _csrf: csrf, locale: "fr" });
  const french = await (await client.get("/settings/vocabulary")).text();
  expect(french).toContain("Vocabulaire");
  expect(french).toContain("Variantes prononcées");
  await client.post("/settings/language", { _csrf: csrf, locale: "en" });
  await server.api(`/api/v1/vocabulary/${mine.id}`, { method: "DELETE", key });
});

test("a transcript imported as text: its variants become the glossary's terms, corrected by the system, and the report reads the terms", async () => {
  const { client, csrf } = await signedIn();
  await client.post("/settings/vocabulary", { _csrf: csrf, term: "Zeppelin Holdings", variants: "zeplin holdings\nzep linn" });
  const upload = await (await client.get("/meetings/new")).text();
  expect(upload).toContain('name="vocabulary"');
  const body = new FormData();
  body.append("_csrf", csrf);
  body.append("title", "Typed minutes");
  body.append("language", "en");
  body.append("vocabulary", "Dr. Nguyen\nAcme Widget");
  body.append("text", "[00:00:03] Alice: We approve the Zeplin  Holdings budget.\nBob: Agreed, zep linn it is.\nAnd nothing else.");
  body.append("text_file", new Blob([]), "");
  const created = await fetch(`${server.url}/meetings/text`, { method: "POST", redirect: "manual", headers: { cookie: client.header(), origin: server.url }, body });
  expect(created.status).toBe(303);
  const id = created.headers.get("location")!.split("/").pop()!;
  const meeting = await eventually(`meeting ${id} ended`, async () => {
    const body = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
    return body.status === "completed" || body.status === "failed" ? body : null;
  }, 30_000);
  expect(meeting.status).toBe("completed");
  // The form's own terms, one a line, are kept on the meeting.
  const kept = await queryRow<{ vocabulary: string }>(server, sql`SELECT vocabulary FROM meetings WHERE id = ${id}`);
  expect(JSON.parse(kept!.vocabulary)).toEqual(["Dr. Nguyen", "Acme Widget"]);

  const transcript = (await (await server.api(`/api/v1/meetings/${id}/transcript`, { key })).json()) as Json;
  expect(transcript.segments.map((s: Json) => s.text)).toEqual(["We approve the Zeppelin Holdings budget.", "Agreed, Zeppelin Holdings it is.", "And nothing else."]);
  // The times a text gives stay as they were.
  expect(transcript.segments[0].start).toBe(3);
  const corrections = (await (await server.api(`/api/v1/meetings/${id}/transcript/corrections`, { key })).json()) as Json;
  expect(corrections.data.map((c: Json) => [c.segment_index, c.previous_text, c.author])).toEqual([
    // Matched across the two spaces the text had between the words; the previous words kept as they were.
    [0, "We approve the Zeplin  Holdings budget.", { id: "system", email: null }],
    [1, "Agreed, zep linn it is.", { id: "system", email: null }],
  ]);
  // The report was written from the words as stored.
  const summary = await (await server.api(`/api/v1/meetings/${id}/summary`, { key })).text();
  expect(summary).toContain("Zeppelin Holdings");
  expect(summary.toLowerCase()).not.toContain("zep linn");
});

test("the record and upload forms carry a meeting's own terms: a draft keeps them, one a line; more than 50 are refused", async () => {
  const { client, csrf } = await signedIn();
  expect(await (await client.get("/record")).text()).toContain('name="vocabulary"');
  const created = await client.post("/meetings/drafts", { kind: "recording", vocabulary: "Smith, Jones LLP\r\nAcme Widget\r\n" }, { "x-csrf-token": csrf });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const kept = await queryRow<{ vocabulary: string }>(server, sql`SELECT vocabulary FROM meetings WHERE id = ${id}`);
  expect(JSON.parse(kept!.vocabulary)).toEqual(["Smith, Jones LLP", "Acme Widget"]);
  const tooMany = Array.from({ length: 51 }, (_, i) => `term ${i}`).join("\n");
  expect((await client.post("/meetings/drafts", { kind: "recording", vocabulary: tooMany }, { "x-csrf-token": csrf })).status).toBe(400);
});

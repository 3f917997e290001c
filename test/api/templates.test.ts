// Templates and personas over real HTTP (SPEC 4): the shipped catalogue plus a firm's folder.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, expectProblem, startServer, type TestServer } from "../helpers/server.ts";

const folder = mkdtempSync(join(tmpdir(), "verbatim-firm-templates-"));
writeFileSync(join(folder, "board-pack.md"), "---\nid: tpl_board_pack\nname: Board pack\ndescription: Our board pack section.\npersona: board\n---\nWrite the board pack section.\n");
writeFileSync(join(folder, "broken.md"), "---\nname: [oops\n---\nprompt\n");
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--templates-dir", folder] });
  key = await createUserWithKey(server, "templates@example.com");
});
afterAll(async () => {
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
});

test("a bad template file is reported at start and skipped; the service runs", () => {
  expect(server.lines.some((l) => l.startsWith("warning: template broken.md skipped: "))).toBe(true);
});

test("GET /v1/personas lists the shipped personas and the firm's, with their template counts", async () => {
  const response = await server.api("/api/v1/personas", { key });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { id: string; object: string; templates: number }[] };
  expect(Object.keys(body)).toEqual(["data"]);
  expect(body.data.map((p) => [p.id, p.templates])).toEqual([["general", 4], ["lawyer", 4], ["sales", 3], ["hr", 2], ["medical", 1], ["board", 1]]);
  expect(body.data.every((p) => p.object === "persona")).toBe(true);
});

test("GET /v1/templates, all or by persona; the prompt is never shown", async () => {
  const all = (await (await server.api("/api/v1/templates", { key })).json()) as { data: Record<string, unknown>[] };
  expect(all.data).toHaveLength(15);
  for (const t of all.data) expect(Object.keys(t).sort()).toEqual(["description", "icon", "id", "name", "object", "persona"]);
  const lawyer = (await (await server.api("/api/v1/templates?persona=lawyer", { key })).json()) as { data: { name: string }[] };
  expect(lawyer.data.map((t) => t.name).sort()).toEqual(["Attendance note", "Case timeline", "Client meeting memo", "Engagement letter draft"]);
  const none = (await (await server.api("/api/v1/templates?persona=astronaut", { key })).json()) as { data: unknown[] };
  expect(none.data).toEqual([]);
});

test("GET /v1/templates/{id}: the template, or 404", async () => {
  const response = await server.api("/api/v1/templates/tpl_soap_note", { key });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({
    id: "tpl_soap_note",
    object: "template",
    name: "Consultation note (SOAP)",
    description: "A consultation note in SOAP form - subjective, objective, assessment, plan.",
    icon: "stethoscope",
    persona: "medical",
  });
  await expectProblem(await server.api("/api/v1/templates/tpl_nothing_here", { key }), 404, "not_found");
});

test("needs read:meetings or write:documents", async () => {
  const writer = await createUserWithKey(server, "writer@example.com", "write:documents");
  expect((await server.api("/api/v1/templates", { key: writer })).status).toBe(200);
  const transcriptsOnly = await createUserWithKey(server, "transcripts-only@example.com", "read:transcripts");
  await expectProblem(await server.api("/api/v1/personas", { key: transcriptsOnly }), 403, "insufficient_scope");
  await expectProblem(await server.api("/api/v1/templates"), 401, "unauthorized");
});

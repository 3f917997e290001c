// Contract tests (issue 9): live responses of the main endpoints validate against the schemas the
// service publishes at /api/openapi.json, with a kept JSON Schema validator (ajv, draft 2020-12 as
// OpenAPI 3.1 uses), so the published document and the service cannot drift apart. Every response
// seen here has its Content-Type checked against the media types the document declares for that
// operation and status (issue 20, item 12): a format served in a type the document does not name
// (Markdown, SRT, WebVTT, PDF, DOCX…) fails, as a validating proxy such as Prism would refuse it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { join } from "node:path";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { undecodableRecording } from "../helpers/recordings.ts";
import { LOOPBACK_CA_FILE, startReceiver } from "../support/webhook-receiver.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
let server: TestServer;
let key: string;
let readOnlyKey: string;
let meetingId: string;
let jobId: string;
let validatorFor: (method: string, path: string, status: number, mediaType?: string) => (body: unknown) => string[];
let declaredTypes: (method: string, path: string, status: number) => string[];
let published: Record<string, any>;
let problemErrors: (body: unknown) => string[];

beforeAll(async () => {
  server = await startServer({
    args: [
      "--engines", "test/doubles/engines.ts",
      "--rate-limits", "pro=100000,free=2,anonymous=100000",
      "--min-free-disk-gb", "0", "--min-free-disk-percent", "0",
      "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE,
    ],
    env: { TEST_ENGINE_BEHAVIOR: "" },
  });
  key = await createUserWithKey(server, "contract@example.com");
  readOnlyKey = await createUserWithKey(server, "reader@example.com", "read:meetings");
  const served = await server.api("/api/openapi.json");
  expect(served.headers.get("content-type")).toBe("application/json");
  const document = (await served.json()) as Record<string, any>;
  published = document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: "openapi.json" });
  const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");
  validatorFor = (method, path, status, mediaType = status < 400 ? "application/json" : "application/problem+json") => {
    const operation = document.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${path} is not in the OpenAPI document`);
    if (!operation.responses[String(status)]?.content?.[mediaType]) throw new Error(`${method} ${path} documents no ${status} ${mediaType}`);
    const validate = ajv.getSchema(`openapi.json#/${pointer("paths", path, method.toLowerCase(), "responses", String(status), "content", mediaType, "schema")}`)!;
    return (body) => (validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
  };
  declaredTypes = (method, path, status) => Object.keys(document.paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.content ?? {});
  const problem = ajv.getSchema("openapi.json#/components/schemas/Problem")!;
  problemErrors = (body) => (problem(body) ? [] : (problem.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

  // The meeting every test reads, made and followed through responses checked like the rest.
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("participants", JSON.stringify([{ name: "Ana", email: "ana@firm.example" }]));
  form.append("metadata", JSON.stringify({ case: "A-17" }));
  form.append("tags", "board");
  const body = (await check("POST", "/v1/meetings", await server.api("/api/v1/meetings", { method: "POST", key, body: form }), 202)) as { id: string; job: { id: string } };
  meetingId = body.id;
  jobId = body.job.id;
  for (let i = 0; i < 300; i++) {
    const job = (await check("GET", "/v1/jobs/{job_id}", await server.api(`/api/v1/jobs/${jobId}`, { key }), 200)) as { status: string };
    if (job.status === "completed") break;
    await Bun.sleep(100);
  }
}, 60_000);
afterAll(async () => {
  await server.stop();
});

/** The media type a response was served as, without parameters ("" when it has no Content-Type). */
function mediaTypeOf(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The response's media type is one the document declares for this operation and status (none for no body). */
function expectDeclaredType(method: string, path: string, response: Response): string {
  const type = mediaTypeOf(response);
  const declared = declaredTypes(method, path, response.status);
  if (type === "" ? declared.length > 0 : !declared.includes(type)) {
    throw new Error(`${method} ${path} answered ${response.status} as ${type || "no content"}; the OpenAPI document declares ${declared.join(", ") || "no content"}`);
  }
  return type;
}

/** A JSON (or problem+json) response: status, declared media type, and its body against the published schema. */
async function check(method: string, path: string, response: Response, status: number): Promise<any> {
  expect(response.status).toBe(status);
  const type = expectDeclaredType(method, path, response);
  const body = await response.json();
  expect(validatorFor(method, path, status, type)(body)).toEqual([]);
  return body;
}

/** A file response (text or binary): status, declared media type, and its body against the published schema. */
async function checkFile(method: string, path: string, response: Response, expectedType: string): Promise<Uint8Array> {
  expect(response.status).toBe(200);
  expect(expectDeclaredType(method, path, response)).toBe(expectedType);
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(bytes.length).toBeGreaterThan(0);
  // Text and binary bodies are both strings to JSON Schema; the schema must at least say so.
  expect(validatorFor(method, path, 200, expectedType)(new TextDecoder().decode(bytes))).toEqual([]);
  return bytes;
}

describe("successful responses match their published schemas", () => {
  test("GET /v1/meetings/{id}", async () => {
    const body = await check("GET", "/v1/meetings/{meeting_id}", await server.api(`/api/v1/meetings/${meetingId}`, { key }), 200);
    expect(body.status).toBe("completed");
  });
  test("GET /v1/meetings", async () => {
    const body = await check("GET", "/v1/meetings", await server.api("/api/v1/meetings?limit=5", { key }), 200);
    expect(body.data.length).toBe(1);
  });
  test("GET /v1/jobs/{id} and GET /v1/jobs", async () => {
    await check("GET", "/v1/jobs/{job_id}", await server.api(`/api/v1/jobs/${jobId}`, { key }), 200);
    await check("GET", "/v1/jobs", await server.api("/api/v1/jobs", { key }), 200);
  });
  test("GET /v1/meetings/{id}/transcript (json)", async () => {
    const body = await check("GET", "/v1/meetings/{meeting_id}/transcript", await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key }), 200);
    expect(body.segments.length).toBeGreaterThan(0);
  });
  test("GET /v1/meetings/{id}/transcript as md, txt, srt and vtt: each in a media type the document declares", async () => {
    const types = { md: "text/markdown", txt: "text/plain", srt: "application/x-subrip", vtt: "text/vtt" };
    for (const [format, type] of Object.entries(types)) {
      await checkFile("GET", "/v1/meetings/{meeting_id}/transcript", await server.api(`/api/v1/meetings/${meetingId}/transcript?format=${format}`, { key }), type);
    }
  });
  test("GET /v1/meetings/{id}/summary", async () => {
    await check("GET", "/v1/meetings/{meeting_id}/summary", await server.api(`/api/v1/meetings/${meetingId}/summary`, { key }), 200);
    await checkFile("GET", "/v1/meetings/{meeting_id}/summary", await server.api(`/api/v1/meetings/${meetingId}/summary?format=md`, { key }), "text/markdown");
  });
  test("GET /v1/meetings/{id}/export", async () => {
    const body = await check("GET", "/v1/meetings/{meeting_id}/export", await server.api(`/api/v1/meetings/${meetingId}/export?max_tokens=2000`, { key }), 200);
    expect(body.parts.length).toBeGreaterThan(0);
    await checkFile("GET", "/v1/meetings/{meeting_id}/export", await server.api(`/api/v1/meetings/${meetingId}/export?max_tokens=2000&format=md`, { key }), "text/markdown");
  });
  test("POST /v1/meetings/{id}/documents, GET /v1/documents, GET /v1/documents/{id}, and the meeting with its documents", async () => {
    const queued = await check(
      "POST",
      "/v1/meetings/{meeting_id}/documents",
      await server.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } }),
      202,
    );
    let job: any;
    for (let i = 0; i < 300; i++) {
      job = await check("GET", "/v1/jobs/{job_id}", await server.api(`/api/v1/jobs/${queued.id}`, { key }), 200);
      if (job.status === "completed") break;
      await Bun.sleep(50);
    }
    const document = await check("GET", "/v1/documents/{document_id}", await server.api(`/api/v1/documents/${job.document_id}`, { key }), 200);
    expect(document.markdown.length).toBeGreaterThan(0);
    const files = { md: "text/markdown", pdf: "application/pdf", docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" };
    for (const [format, type] of Object.entries(files)) {
      await checkFile("GET", "/v1/documents/{document_id}", await server.api(`/api/v1/documents/${job.document_id}?format=${format}`, { key }), type);
    }
    const content = published.paths["/v1/documents/{document_id}"].get.responses["200"].content;
    expect(content["application/pdf"].schema).toMatchObject({ type: "string", format: "binary" });
    expect(content[files.docx].schema).toMatchObject({ type: "string", format: "binary" });
    expect(content["text/markdown"].schema).toEqual({ type: "string" });
    const list = await check("GET", "/v1/documents", await server.api(`/api/v1/documents?meeting_id=${meetingId}`, { key }), 200);
    expect(list.data).toHaveLength(1);
    const meeting = await check("GET", "/v1/meetings/{meeting_id}", await server.api(`/api/v1/meetings/${meetingId}`, { key }), 200);
    expect(meeting.documents).toHaveLength(1);
  });
  test("GET /v1/usage and GET /v1/usage/ledger", async () => {
    const usage = await check("GET", "/v1/usage", await server.api("/api/v1/usage", { key }), 200);
    expect(usage.totals.operations).toBeGreaterThan(0);
    const ledger = await check("GET", "/v1/usage/ledger", await server.api("/api/v1/usage/ledger", { key }), 200);
    expect(ledger.data.length).toBeGreaterThan(0);
  });
  test("webhook endpoints: create, list, read, update, rotate, deliveries, test, delete", async () => {
    const receiver = startReceiver();
    const created = await check(
      "POST",
      "/v1/webhook_endpoints",
      await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: receiver.url, events: ["*"] } }),
      201,
    );
    receiver.stop();
    await check("GET", "/v1/webhook_endpoints", await server.api("/api/v1/webhook_endpoints", { key }), 200);
    await check("GET", "/v1/webhook_endpoints/{endpoint_id}", await server.api(`/api/v1/webhook_endpoints/${created.id}`, { key }), 200);
    await check("PATCH", "/v1/webhook_endpoints/{endpoint_id}", await server.api(`/api/v1/webhook_endpoints/${created.id}`, { method: "PATCH", key, json: { enabled: false } }), 200);
    await check("POST", "/v1/webhook_endpoints/{endpoint_id}/rotate_secret", await server.api(`/api/v1/webhook_endpoints/${created.id}/rotate_secret`, { method: "POST", key }), 200);
    await check("POST", "/v1/webhook_endpoints/{endpoint_id}/test", await server.api(`/api/v1/webhook_endpoints/${created.id}/test`, { method: "POST", key }), 202);
    await check("GET", "/v1/webhook_endpoints/{endpoint_id}/deliveries", await server.api(`/api/v1/webhook_endpoints/${created.id}/deliveries`, { key }), 200);
  });
  test("GET /v1/meetings/{id}/participants and GET /v1/me", async () => {
    await check("GET", "/v1/meetings/{meeting_id}/participants", await server.api(`/api/v1/meetings/${meetingId}/participants`, { key }), 200);
    await check("GET", "/v1/me", await server.api("/api/v1/me", { key }), 200);
  });
});

describe("problems match the Problem schema, for each status the API answers with", () => {
  const json = { "Content-Type": "application/json" };
  const cases: [string, number, string, () => Promise<Response>][] = [
    ["400 validation_error", 400, "/v1/meetings", () => server.api("/api/v1/meetings?limit=0", { key })],
    ["401 unauthorized", 401, "/v1/meetings", () => server.api("/api/v1/meetings")],
    ["403 insufficient_scope", 403, "/v1/meetings/{meeting_id}/transcript", () => server.api(`/api/v1/meetings/${meetingId}/transcript`, { key: readOnlyKey })],
    ["404 not_found", 404, "/v1/meetings/{meeting_id}", () => server.api(`/api/v1/meetings/${crypto.randomUUID()}`, { key })],
    ["413 request_too_large", 413, "/v1/feedback", () => server.api("/api/v1/feedback", { method: "POST", key, headers: json, body: `{"message":"${"x".repeat(1_100_000)}"}` })],
    ["415 unsupported_media_type", 415, "/v1/meetings", () => server.api("/api/v1/meetings", { method: "POST", key, headers: { "Content-Type": "text/plain" }, body: "x" })],
  ];
  for (const [name, status, path, send] of cases) {
    test(name, async () => {
      const response = await send();
      const method = path === "/v1/feedback" || (status === 415 && path === "/v1/meetings") ? "POST" : "GET";
      await check(method, path, response, status);
    });
  }

  test("409 transcript_not_ready, 422 idempotency_key_reused, 429 rate_limited", async () => {
    // 409: a meeting still queued has no transcript yet (the doubles are slowed by nothing else, so stop its job first).
    const form = new FormData();
    form.append("file", new Blob([undecodableRecording(2048)]), "junk.bin");
    const idem = crypto.randomUUID();
    const junk = (await check("POST", "/v1/meetings", await server.api("/api/v1/meetings", { method: "POST", key, body: form, headers: { "Idempotency-Key": idem } }), 202)) as { id: string };
    await check("GET", "/v1/meetings/{meeting_id}/transcript", await server.api(`/api/v1/meetings/${junk.id}/transcript`, { key }), 409);
    const other = new FormData();
    other.append("file", new Blob([undecodableRecording(10)]), "other.bin");
    await check("POST", "/v1/meetings", await server.api("/api/v1/meetings", { method: "POST", key, body: other, headers: { "Idempotency-Key": idem } }), 422);
    const free = await createUserWithKey(server, "free-contract@example.com", "all", "free");
    let limited: Response | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const response = await server.api("/api/v1/me", { key: free });
      if (response.status === 429) limited = response;
      else await check("GET", "/v1/me", response, 200);
    }
    await check("GET", "/v1/me", limited!, 429);
  });

  test("405 method_not_allowed and 507 insufficient_storage", async () => {
    // 405 belongs to no operation (it answers a method the path lacks): checked against the Problem component.
    const response = await server.api("/api/v1/me", { method: "DELETE", key });
    expect(response.status).toBe(405);
    expect(mediaTypeOf(response)).toBe("application/problem+json");
    expect(problemErrors(await response.json())).toEqual([]);
    const full = await startServer({ args: ["--min-free-disk-gb", "1000000"] });
    try {
      const upload = new FormData();
      upload.append("file", new Blob([new Uint8Array(10)]), "a.wav");
      await check("POST", "/v1/meetings", await full.api("/api/v1/meetings", { method: "POST", key: full.adminKey, body: upload }), 507);
    } finally {
      await full.stop();
    }
  });
});

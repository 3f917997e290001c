import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { listClientsQuery } from "../../src/clients/schema.ts";
import { ERROR_CATALOGUE } from "../../src/errors/catalogue.ts";
import { JOB_ERROR_CATALOGUE } from "../../src/errors/job-codes.ts";
import { createFeedbackBody, FEEDBACK_TYPES } from "../../src/feedback/schema.ts";
import { API_VERSION } from "../../src/lib/version.ts";
import { createUserWithKey, expectProblem, expectRateHeaders, startServer, type TestServer } from "../helpers/server.ts";

/** The published documents: the error catalogue page and the OpenAPI document. */

let server: TestServer;
let freeKey: string; // free plan, limited to 2 requests a minute on this server
let readUsageKey: string;

beforeAll(async () => {
  server = await startServer({ args: ["--rate-limits", "free=2"] });
  [freeKey, readUsageKey] = await Promise.all([
    createUserWithKey(server, "free@example.com", "all", "free"),
    createUserWithKey(server, "usage@example.com", "read:usage", "pro"),
  ]);
});

afterAll(async () => {
  await server?.stop();
});

const get = (path: string, init: Parameters<TestServer["api"]>[1] = {}) => server.api(path, { signal: AbortSignal.timeout(5000), ...init });

/** Every id="..." on an HTML page, with duplicates kept so they can be counted. */
function elementIds(html: string): string[] {
  return [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

async function errorsPage(): Promise<string> {
  const response = await get("/docs/api/errors");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/html\b/);
  expectRateHeaders(response);
  return response.text();
}

describe("error catalogue page", () => {
  test("is HTML with one element per catalogue code, each giving its status and title", async () => {
    const html = await errorsPage();
    expect(html).toMatch(/^<!doctype html>/i);
    const ids = elementIds(html);
    expect(new Set(ids).size).toBe(ids.length);
    const codes = Object.keys(ERROR_CATALOGUE);
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(ids).toContain(code);
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      const section = new RegExp(`id="${code}"[\\s\\S]*?</section>`).exec(html)?.[0] ?? "";
      expect({ code, hasStatus: section.includes(`HTTP ${entry.status}`) }).toEqual({ code, hasStatus: true });
      expect({ code, hasTitle: section.includes(escapeHtml(entry.title)) }).toEqual({ code, hasTitle: true });
    }
  });

  test("renders catalogue text as text: no stray markup from descriptions", async () => {
    const html = await errorsPage();
    // Backticks in descriptions become <code>, and nothing else is left unescaped.
    expect(html).not.toContain("`");
    expect(html).toContain("<code>Retry-After</code>");
    expect(html.match(/<script/gi)).toBeNull();
  });

  test("every problem type URL the service answers with points at an anchor on the page", async () => {
    const html = await errorsPage();
    const ids = new Set(elementIds(html));
    const admin = server.adminKey;
    const json = { "Content-Type": "application/json" };
    const problems: [string, () => Promise<Response>][] = [
      ["validation_error", () => get("/api/v1/feedback", { method: "POST", key: admin, json: { message: "" } })],
      ["malformed_body", () => get("/api/v1/feedback", { method: "POST", key: admin, headers: json, body: "{" })],
      ["unauthorized", () => get("/api/v1/me")],
      ["insufficient_scope", () => get("/api/v1/clients", { key: readUsageKey })],
      ["not_found", () => get("/api/v1/nope", { key: admin })],
      ["method_not_allowed", () => get("/api/v1/me", { method: "DELETE", key: admin })],
      ["request_too_large", () => get("/api/v1/feedback", { method: "POST", key: admin, headers: json, body: "x".repeat(1024 * 1024 + 1) })],
      ["unsupported_media_type", () => get("/api/v1/feedback", { method: "POST", key: admin, headers: { "Content-Type": "text/plain" }, body: "{}" })],
      ["request_header_fields_too_large", () => get("/api/v1/me", { key: admin, headers: { "X-Padding": "a".repeat(20_000) } })],
    ];
    // The free key's third request in a minute is refused.
    for (let i = 0; i < 2; i++) expect((await get("/api/v1/me", { key: freeKey })).status).toBe(200);
    problems.push(["rate_limited", () => get("/api/v1/me", { key: freeKey })]);

    const docsPage = new URL("/docs/api/errors", server.url).href;
    for (const [code, send] of problems) {
      const response = await send();
      const body = (await expectProblem(response, ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status, code)) as any;
      const type = new URL(body.type);
      expect(type.origin + type.pathname).toBe(docsPage);
      expect(type.hash).toBe(`#${code}`);
      expect({ code, anchored: ids.has(decodeURIComponent(type.hash.slice(1))) }).toEqual({ code, anchored: true });
      // The type URL itself loads the page.
      const page = await fetch(type.href, { signal: AbortSignal.timeout(5000) });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html\b/);
      await page.arrayBuffer();
    }
  });
});

/**
 * Every job error code the source can produce, read from the source itself: the first argument of
 * each EngineError / DownloadFailed / EgressRefused (a string, or a constant of the same file),
 * the failure-code unions of the download code, and the `code:` literals of the worker pool and
 * the worker, and the scheduler's own failures. A new code anywhere there must be documented.
 */
async function emittedJobErrorCodes(): Promise<Map<string, string>> {
  const found = new Map<string, string>(); // code -> file that emits it
  const root = join(import.meta.dir, "..", "..");
  for await (const file of new Bun.Glob("src/**/*.ts").scan(root)) {
    if (file.endsWith(".test.ts")) continue;
    const text = readFileSync(join(root, file), "utf8");
    const constants = new Map([...text.matchAll(/const ([A-Z_]+) = "([a-z_]+)"/g)].map((m) => [m[1]!, m[2]!]));
    const add = (code: string | undefined) => code && found.set(code, file);
    for (const m of text.matchAll(/new (?:EngineError|DownloadFailed|EgressRefused)\(\s*(?:"([a-z_]+)"|([A-Z_]+)\b)/g)) add(m[1] ?? constants.get(m[2]!));
    for (const m of text.matchAll(/export type (?:EgressRefusalCode|DownloadFailureCode) =([^;]+);/g)) {
      for (const literal of m[1]!.matchAll(/"([a-z_]+)"/g)) add(literal[1]);
    }
    if (/^src\/(worker\/|jobs\/worker-pool\.ts)/.test(file)) for (const m of text.matchAll(/\bcode: "([a-z_]+)"/g)) add(m[1]);
    if (file === "src/jobs/scheduler.ts") for (const m of text.matchAll(/this\.fail\((?:\w+, )+"([a-z_]+)"/g)) add(m[1]);
  }
  return found;
}

describe("job error codes on the error page", () => {
  test("every code a job can fail with is in the job error catalogue", async () => {
    const emitted = await emittedJobErrorCodes();
    // The scan finds the codes it must (one of each source), so an empty scan cannot pass.
    for (const code of ["unsupported_media", "recording_too_long", "insufficient_storage", "address_not_allowed", "download_timeout", "worker_crashed", "invalid_step", "llm_invalid_output", "engine_error"]) {
      expect({ code, emitted: emitted.has(code) }).toEqual({ code, emitted: true });
    }
    const undocumented = [...emitted].filter(([code]) => !(code in JOB_ERROR_CATALOGUE)).map(([code, file]) => `${code} (${file})`);
    expect(undocumented).toEqual([]);
  });

  test("each job error code has its own anchor (#job-<code>) with its description, apart from the HTTP problems", async () => {
    const html = await errorsPage();
    const ids = elementIds(html);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("job-errors");
    const jobPart = html.slice(html.indexOf('id="job-errors"'));
    expect(jobPart).not.toContain('id="not_found"'); // the problems come before, in their own part
    for (const [code, entry] of Object.entries(JOB_ERROR_CATALOGUE)) {
      const section = new RegExp(`id="job-${code}"[\\s\\S]*?</section>`).exec(jobPart)?.[0] ?? "";
      expect({ code, described: section.includes(`>${code}</a>`) && section.includes(escapeHtml(entry.description).replace(/`([^`]+)`/g, "<code>$1</code>")) }).toEqual({ code, described: true });
    }
  });
});

/** Resolves a local JSON pointer (#/a/b) against the document, or returns undefined. */
function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  if (ref === "#") return document;
  if (!ref.startsWith("#/")) return undefined;
  let node: any = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Every `$ref` value in the document, with where it was found. */
function collectRefs(node: unknown, at = "#", out: { at: string; ref: unknown }[] = []) {
  if (Array.isArray(node)) node.forEach((item, i) => collectRefs(item, `${at}/${i}`, out));
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref") out.push({ at, ref: value });
      else collectRefs(value, `${at}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, out);
    }
  }
  return out;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

describe("OpenAPI document", () => {
  let doc: any;

  beforeAll(async () => {
    const response = await get("/api/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json\b/);
    expectRateHeaders(response);
    doc = await response.json();
  });

  test("is OpenAPI 3.1.0 with info, the API version and this server's URL", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(typeof doc.info.title).toBe("string");
    expect(doc.info.version).toBe(API_VERSION);
    expect(doc.servers).toEqual([{ url: `${server.url}/api` }]);
  });

  test("lists /v1/me, /v1/feedback and /v1/clients with their operations", () => {
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/me", "/v1/feedback", "/v1/clients"]));
    expect(Object.keys(doc.paths["/v1/me"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/feedback"])).toEqual(["post"]);
    expect(Object.keys(doc.paths["/v1/clients"])).toEqual(["get"]);
    expect(doc.paths["/v1/me"].get.operationId).toBe("getAccount");
    expect(doc.paths["/v1/feedback"].post.operationId).toBe("createFeedback");
    expect(doc.paths["/v1/clients"].get.operationId).toBe("listClients");
    // Paths are relative to the server URL, which already ends in /api; pages outside /api are not operations.
    for (const path of Object.keys(doc.paths)) expect(path.startsWith("/api/")).toBe(false);
    expect(doc.paths["/healthz"]).toBeUndefined();
  });

  test("POST /v1/feedback's body schema is the route's own zod schema", () => {
    const operation = doc.paths["/v1/feedback"].post;
    expect(operation.requestBody.required).toBe(true);
    const schema = operation.requestBody.content["application/json"].schema;
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["message"]);
    expect(schema.properties.message).toMatchObject({ type: "string", minLength: 1, maxLength: 10_000 });
    expect(schema.properties.type.enum).toEqual([...FEEDBACK_TYPES]);
    expect(schema.properties.type.default).toBe("feedback");
    expect(Object.keys(schema.properties).sort()).toEqual(["meeting_id", "message", "type"]);
    const { $schema: _ignored, ...fromZod } = z.toJSONSchema(createFeedbackBody, { io: "input", unrepresentable: "any" }) as any;
    expect(schema).toEqual(fromZod);
    // Its answers: 201 with the feedback, and the problems this body can cause.
    expect(operation.responses["201"].content["application/json"].schema.properties.object).toMatchObject({ const: "feedback" });
    for (const status of ["400", "401", "413", "415", "429"]) {
      expect(operation.responses[status]?.content?.["application/problem+json"]?.schema).toEqual({ $ref: "#/components/schemas/Problem" });
    }
    expect(operation.responses["400"].description).toContain("validation_error");
    expect(operation.responses["400"].description).toContain("malformed_body");
  });

  test("GET /v1/clients takes include_archived and q as query parameters", () => {
    const operation = doc.paths["/v1/clients"].get;
    const byName = Object.fromEntries((operation.parameters as any[]).map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(["include_archived", "q"]);
    expect(byName.include_archived).toMatchObject({ in: "query", required: false });
    expect(byName.include_archived.schema.enum).toEqual(["true", "false"]);
    expect(byName.q).toMatchObject({ in: "query", required: false, schema: { type: "string", maxLength: 300 } });
    // Same source as validation: the query schema's own limit.
    expect((z.toJSONSchema(listClientsQuery, { io: "input" }) as any).properties.q.maxLength).toBe(byName.q.schema.maxLength);
    expect(operation.security).toEqual([{ bearer: ["read:meetings"] }]);
    expect(operation.responses["200"].content["application/json"].schema.properties.data.type).toBe("array");
  });

  test("declares the bearer security scheme, used by every authenticated operation", () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/v1/me"].get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths["/v1/feedback"].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths["/openapi.json"]?.get?.security).toEqual([]);
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        for (const requirement of item[method].security ?? []) {
          for (const name of Object.keys(requirement)) expect({ path, method, name, declared: schemes.has(name) }).toEqual({ path, method, name, declared: true });
        }
        if ((item[method].security ?? []).length > 0) expect(item[method].responses["401"]).toBeDefined();
      }
    }
  });

  test("has the Problem schema, with every catalogue code", () => {
    const problem = doc.components.schemas.Problem;
    expect(problem.type).toBe("object");
    expect([...problem.required].sort()).toEqual(["code", "detail", "instance", "request_id", "status", "title", "type"]);
    expect(Object.keys(problem.properties)).toEqual(expect.arrayContaining(["type", "title", "status", "detail", "instance", "code", "request_id", "errors"]));
    expect([...problem.properties.code.enum].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    expect(problem.properties.errors.items.required).toEqual(["field", "code", "message"]);
  });

  test("every $ref resolves inside the document", () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(0);
    // The resolver itself tells a dangling pointer from a real one.
    expect(resolvePointer(doc, "#/components/schemas/Problem")).toBe(doc.components.schemas.Problem);
    expect(resolvePointer(doc, "#/components/schemas/NoSuchSchema")).toBeUndefined();
    expect(resolvePointer(doc, "https://example.com/schema.json#/x")).toBeUndefined();
    for (const { at, ref } of refs) {
      expect({ at, ref, type: typeof ref }).toEqual({ at, ref, type: "string" });
      const target = resolvePointer(doc, ref as string);
      expect({ at, ref, resolves: target !== undefined && target !== null && typeof target === "object" }).toEqual({ at, ref, resolves: true });
    }
  });

  test("is structurally sound: operations, ids, path parameters and responses", () => {
    const operationIds: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(path).toMatch(/^\//);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const methods = Object.keys(item);
      expect(methods.length).toBeGreaterThan(0);
      for (const method of methods) {
        expect(METHODS).toContain(method);
        const operation = item[method];
        expect(typeof operation.operationId).toBe("string");
        operationIds.push(operation.operationId);
        expect(typeof operation.summary).toBe("string");
        const parameters = (operation.parameters ?? []) as any[];
        const keys = parameters.map((p) => `${p.in}:${p.name}`);
        expect(new Set(keys).size).toBe(keys.length);
        for (const p of parameters) {
          expect(["path", "query", "header", "cookie"]).toContain(p.in);
          expect(typeof p.schema).toBe("object");
          if (p.in === "path") {
            expect(p.required).toBe(true);
            expect(templated).toContain(p.name);
          }
        }
        for (const name of templated) expect(keys).toContain(`path:${name}`);
        const responses = Object.entries<any>(operation.responses);
        expect(responses.length).toBeGreaterThan(0);
        for (const [status, response] of responses) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(typeof response.description).toBe("string");
          for (const media of Object.values<any>(response.content ?? {})) expect(typeof media.schema).toBe("object");
        }
        // Every operation documents the rate limit.
        expect(operation.responses["429"]).toBeDefined();
      }
    }
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });
});

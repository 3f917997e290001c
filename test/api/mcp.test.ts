// The MCP server at /mcp (issue 24 item 2), driven by the official MCP TypeScript SDK client over
// real HTTP against a real server (SQLite, or PostgreSQL with VERBATIM_TEST_DATABASE_URL): version
// negotiation, the tools with their schemas, each tool on a processed meeting (test engine doubles),
// scopes refused, another account's ids not found, the 401 challenge, resources, prompts, metering
// like the REST API and the audit trail's "mcp" channel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportAuditEntries, type AuditRow } from "../../src/audit/store.ts";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { call, refusal } from "../helpers/mcp-client.ts";
import { createUserWithKey, endedJob, startServer, SHARED_FIXTURES, type TestServer } from "../helpers/server.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const METRICS_TOKEN = "metrics-token-for-the-mcp-test-0123456789";
type Json = Record<string, any>;

let server: TestServer;
let key: string;
let otherKey: string;
let readOnlyKey: string;
let meetingId: string;
/** A document of lea's, made by generate_document (another account must not see it). */
let documentId: string;

async function connect(bearer: string, name = "verbatim-test"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
  return client;
}

async function usedFromWallet(bearer: string): Promise<number> {
  return ((await (await server.api("/api/v1/usage", { key: bearer })).json()) as Json).wallet.used;
}

async function trailOf(email: string): Promise<AuditRow[]> {
  const accountId = (await getUserByEmail(server.conn(), email))!.id;
  const rows: AuditRow[] = [];
  for await (const row of exportAuditEntries(server.conn(), { accountId })) rows.push(row);
  return rows;
}

function rawMcp(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (version: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

beforeAll(async () => {
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--metrics-token", METRICS_TOKEN],
    env: { TEST_ENGINE_BEHAVIOR: "" },
  });
  key = await createUserWithKey(server, "lea@firm.example");
  otherKey = await createUserWithKey(server, "marc@firm.example");
  readOnlyKey = (JSON.parse((await server.admin("key", "create", "--email", "lea@firm.example", "--name", "read-only", "--scopes", "read:meetings", "--json")).stdout) as Json).key;
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", "Réunion client Dupont");
  form.append("participants", JSON.stringify([{ name: "Zoé", speaker_labels: ["SPEAKER_00"] }]));
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json;
  meetingId = created.id;
  expect((await endedJob(server, key, created.job.id)).status).toBe("completed");
});
afterAll(() => server.stop());

describe("connecting", () => {
  test("the official client connects with an API key and negotiates its own version (2025-11-25)", async () => {
    const client = await connect(key);
    expect(client.getServerVersion()).toMatchObject({ name: "verbatim" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(client.getInstructions()).toContain("search_meetings");
    const transport = client.transport as StreamableHTTPClientTransport;
    expect(transport.protocolVersion).toBe("2025-11-25");
    // Stateless: no session id handed out, so any API node answers the next request.
    expect(transport.sessionId).toBeUndefined();
    await client.close();
  });

  test("a client asking 2025-06-18 gets 2025-06-18; an unknown version gets the newest the server knows", async () => {
    const older = (await (await rawMcp(initialize("2025-06-18"), { authorization: `Bearer ${key}` })).json()) as Json;
    expect(older.result.protocolVersion).toBe("2025-06-18");
    const unknown = (await (await rawMcp(initialize("1999-01-01"), { authorization: `Bearer ${key}` })).json()) as Json;
    expect(unknown.result.protocolVersion >= "2025-11-25").toBe(true);
  });

  test("no credential or a wrong one: 401 with the Bearer challenge naming the resource metadata and scopes", async () => {
    for (const headers of [{}, { authorization: "Bearer vb_not_a_real_key" }] as Record<string, string>[]) {
      const response = await rawMcp(initialize("2025-11-25"), headers);
      expect(response.status).toBe(401);
      const challenge = response.headers.get("www-authenticate")!;
      expect(challenge).toStartWith("Bearer ");
      expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
      expect(challenge).toMatch(/scope="[^"]*read:meetings[^"]*read:transcripts/);
      // RFC 6750 §3.1: a presented credential that is refused is an invalid_token; no credential gets the bare challenge.
      expect(challenge.includes('error="invalid_token"')).toBe(headers.authorization !== undefined);
      expect(response.headers.get("x-request-id")).toBeTruthy();
    }
    await expect(connect("vb_not_a_real_key")).rejects.toThrow();
  });

  test("an OAuth access token from admin token create works the same way", async () => {
    const minted = await server.admin("token", "create", "--email", "lea@firm.example", "--scopes", "read:meetings,read:transcripts", "--json");
    expect(minted.code).toBe(0);
    const client = await connect((JSON.parse(minted.stdout) as Json).access_token);
    const page = await call(client, "search_meetings", {});
    expect(page.data.map((m: Json) => m.id)).toContain(meetingId);
    await client.close();
  });

  test("a disabled user's key is refused at /mcp as at the API", async () => {
    const disabledKey = await createUserWithKey(server, "gone@firm.example");
    expect((await rawMcp(initialize("2025-11-25"), { authorization: `Bearer ${disabledKey}` })).status).toBe(200);
    expect((await server.admin("user", "disable", "--email", "gone@firm.example")).code).toBe(0);
    const refused = await rawMcp(initialize("2025-11-25"), { authorization: `Bearer ${disabledKey}` });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  test("GET and DELETE are 405 (stateless: no stream, no session)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });
});

describe("tools on a processed meeting", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(key);
  });
  afterAll(() => client.close());

  test("tools/list: the eight tools, each with a description, an input schema and an output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["generate_document", "get_document", "get_export_part", "get_meeting", "get_report", "get_transcript", "list_templates", "search_meetings"]);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
    }
    const transcript = tools.find((t) => t.name === "get_transcript")!;
    expect(Object.keys(transcript.inputSchema.properties!)).toEqual(expect.arrayContaining(["meeting_id", "from_seconds", "to_seconds", "offset", "limit"]));
    expect(transcript.inputSchema.required).toEqual(["meeting_id"]);
    expect(tools.find((t) => t.name === "generate_document")!.annotations?.readOnlyHint).toBe(false);
    expect(tools.find((t) => t.name === "get_report")!.annotations?.readOnlyHint).toBe(true);
  });

  test("search_meetings: q and filters, paged, the same page as GET /v1/meetings", async () => {
    const found = await call(client, "search_meetings", { q: "Dupont", status: "completed", limit: 5 });
    expect(found.data.map((m: Json) => m.id)).toEqual([meetingId]);
    const rest = (await (await server.api("/api/v1/meetings?q=Dupont&status=completed&limit=5", { key })).json()) as Json;
    expect(found).toEqual(rest);
    expect((await call(client, "search_meetings", { q: "nothing-like-this-anywhere" })).data).toEqual([]);
    const bad = await refusal(client, "search_meetings", { recorded_after: "yesterday" });
    expect(bad.code).toBe("validation_error");
  });

  test("get_meeting and get_report: the meeting and its AI report as the REST API shows them", async () => {
    const meeting = await call(client, "get_meeting", { meeting_id: meetingId });
    expect(meeting).toMatchObject({ id: meetingId, object: "meeting", title: "Réunion client Dupont", status: "completed" });
    const report = await call(client, "get_report", { meeting_id: meetingId });
    const rest = (await (await server.api(`/api/v1/meetings/${meetingId}/summary`, { key })).json()) as Json;
    expect(report).toEqual(rest);
    expect(report.markdown.length).toBeGreaterThan(0);
  });

  test("get_transcript: speaker names, paged by offset and by time range", async () => {
    const rest = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=json`, { key })).json()) as Json;
    const all = await call(client, "get_transcript", { meeting_id: meetingId });
    expect(all.total_segments).toBe(rest.segments.length);
    expect(all.speakers).toContainEqual({ label: "SPEAKER_00", name: "Zoé" });
    expect(all.segments[0]).toMatchObject({ index: 0, speaker: rest.segments[0].speaker, speaker_name: rest.segments[0].speaker_name, text: rest.segments[0].text });
    expect(all.next_offset).toBeNull();

    const first = await call(client, "get_transcript", { meeting_id: meetingId, limit: 1 });
    expect(first.segments).toHaveLength(1);
    expect(first.next_offset).toBe(1);
    const second = await call(client, "get_transcript", { meeting_id: meetingId, offset: 1, limit: 1 });
    expect(second.segments[0].index).toBe(1);

    const cut = rest.segments[1].start;
    const late = await call(client, "get_transcript", { meeting_id: meetingId, from_seconds: cut });
    expect(late.segments.every((s: Json) => s.end > cut)).toBe(true);
    expect(late.total_segments).toBe(rest.segments.filter((s: Json) => s.end > cut).length);
    expect(late.total_segments).toBeLessThan(rest.segments.length);
  });

  test("get_export_part: one part of the bundle, with its place among the parts", async () => {
    const rest = (await (await server.api(`/api/v1/meetings/${meetingId}/export?max_tokens=2000&lang=en`, { key })).json()) as Json;
    const part = await call(client, "get_export_part", { meeting_id: meetingId, max_tokens: 2000, lang: "en", part: 1 });
    expect(part).toMatchObject({ meeting_id: meetingId, part: 1, of: rest.parts.length, content: rest.parts[0].content, priming_prompt: rest.priming_prompt });
    const beyond = await refusal(client, "get_export_part", { meeting_id: meetingId, max_tokens: 2000, part: rest.parts.length + 1 });
    expect(beyond.code).toBe("validation_error");
  });

  test("list_templates: the catalogue, as GET /v1/templates lists it", async () => {
    const listed = await call(client, "list_templates", {});
    const rest = (await (await server.api("/api/v1/templates", { key })).json()) as Json;
    expect(listed.data).toEqual(rest.data);
    expect(listed.data.map((t: Json) => t.id)).toContain("tpl_client_memo");
    expect((await call(client, "list_templates", { persona: "lawyer" })).data.every((t: Json) => t.persona === "lawyer")).toBe(true);
  });

  test("generate_document with wait: the job and the document, debited from the wallet exactly like POST /v1/meetings/{id}/documents", async () => {
    const before = await usedFromWallet(key);
    const generated = await call(client, "generate_document", { meeting_id: meetingId, template_id: "tpl_client_memo", wait: true, wait_seconds: 60 });
    expect(generated.job).toMatchObject({ object: "job", kind: "document_generation", status: "completed", meeting_id: meetingId });
    expect(generated.document).toMatchObject({ id: generated.job.document_id, meeting_id: meetingId });
    expect(generated.document.markdown.length).toBeGreaterThan(0);
    const afterMcp = await usedFromWallet(key);
    expect(afterMcp).toBeGreaterThan(before);
    // The job is the API's: GET /v1/jobs shows it, as it shows a REST request's.
    expect((await server.api(`/api/v1/jobs/${generated.job.id}`, { key })).status).toBe(200);

    const queued = (await (await server.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key, json: { template_id: "tpl_client_memo" } })).json()) as Json;
    expect((await endedJob(server, key, queued.id)).status).toBe("completed");
    expect((await usedFromWallet(key)) - afterMcp).toBe(afterMcp - before);

    documentId = generated.document.id;
    const document = await call(client, "get_document", { document_id: documentId });
    expect(document).toEqual(generated.document);
  });

  test("generate_document without wait answers the queued job at once; a body the REST API refuses is refused alike", async () => {
    const queued = await call(client, "generate_document", { meeting_id: meetingId, prompt: "List the dates mentioned." });
    expect(queued.document).toBeNull();
    expect(["queued", "processing", "completed"]).toContain(queued.job.status);
    await endedJob(server, key, queued.job.id);
    const both = await refusal(client, "generate_document", { meeting_id: meetingId, prompt: "x", template_id: "tpl_client_memo" });
    expect(both.code).toBe("validation_error");
  });

  test("reads are recorded in the audit trail with the mcp channel and the API key", async () => {
    await call(client, "get_transcript", { meeting_id: meetingId });
    const deadline = Date.now() + 10_000;
    let reads: AuditRow[] = [];
    while (Date.now() < deadline) {
      reads = (await trailOf("lea@firm.example")).filter((row) => row.action === "transcript.read" && row.channel === "mcp");
      if (reads.length) break;
      await Bun.sleep(100);
    }
    expect(reads.length).toBeGreaterThan(0);
    expect(reads[0]).toMatchObject({ credentialType: "api_key", resourceType: "meeting", resourceId: meetingId });
  });
});

describe("refusals", () => {
  test("another account's meeting and document are not found, as over REST", async () => {
    const client = await connect(otherKey, "someone-else");
    for (const tool of ["get_meeting", "get_transcript", "get_report", "get_export_part"]) {
      expect((await refusal(client, tool, { meeting_id: meetingId })).code).toBe("not_found");
    }
    expect((await refusal(client, "generate_document", { meeting_id: meetingId, template_id: "tpl_client_memo" })).code).toBe("not_found");
    expect((await refusal(client, "get_document", { document_id: documentId })).code).toBe("not_found");
    expect((await call(client, "search_meetings", {})).data).toEqual([]);
    await expect(client.readResource({ uri: `verbatim://meetings/${meetingId}/transcript` })).rejects.toThrow(/not found/i);
    await client.close();
  });

  test("a tool needing a scope the credential lacks: 403 insufficient_scope naming the scope", async () => {
    const client = await connect(readOnlyKey, "read-only");
    expect((await call(client, "get_meeting", { meeting_id: meetingId })).id).toBe(meetingId);
    await expect(client.callTool({ name: "get_transcript", arguments: { meeting_id: meetingId } })).rejects.toThrow(/403|insufficient_scope|read:transcripts/);
    await client.close();

    const response = await rawMcp({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "generate_document", arguments: { meeting_id: meetingId, template_id: "tpl_client_memo" } } }, {
      authorization: `Bearer ${readOnlyKey}`,
      "mcp-protocol-version": "2025-11-25",
    });
    expect(response.status).toBe(403);
    const challenge = response.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="write:documents"');
    expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7 });
    expect(body.error.message).toContain("write:documents");
  });

  test("a body that is not JSON, or too large, is refused before any tool runs", async () => {
    const garbage = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as Json).error.code).toBe(-32700);
    const huge = await rawMcp({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_meetings", arguments: { q: "x".repeat(300_000) } } }, { authorization: `Bearer ${key}` });
    expect(huge.status).toBe(413);
  });
});

describe("resources and prompts", () => {
  test("resources/list names the recent meetings' transcripts and reports; resources/read answers their Markdown", async () => {
    const client = await connect(key);
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`verbatim://meetings/${meetingId}/transcript`);
    expect(uris).toContain(`verbatim://meetings/${meetingId}/report`);
    expect(resources.find((r) => r.uri.endsWith("/transcript"))!.title).toBe("Transcript: Réunion client Dupont");
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(["verbatim://meetings/{meeting_id}/report", "verbatim://meetings/{meeting_id}/transcript"]);

    const transcript = await client.readResource({ uri: `verbatim://meetings/${meetingId}/transcript` });
    const restMd = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=md`, { key })).text();
    expect(transcript.contents[0]).toMatchObject({ mimeType: "text/markdown", text: restMd });
    const report = await client.readResource({ uri: `verbatim://meetings/${meetingId}/report` });
    expect((report.contents[0] as Json).text).toBe(await (await server.api(`/api/v1/meetings/${meetingId}/summary?format=md`, { key })).text());
    await client.close();
  });

  test("reading a transcript resource needs read:transcripts", async () => {
    const client = await connect(readOnlyKey, "read-only");
    expect((await client.readResource({ uri: `verbatim://meetings/${meetingId}/report` })).contents).toHaveLength(1);
    await expect(client.readResource({ uri: `verbatim://meetings/${meetingId}/transcript` })).rejects.toThrow(/403|insufficient_scope|read:transcripts/);
    await client.close();
  });

  test("prompts: a client memo and a follow-up email, naming the shipped templates", async () => {
    const client = await connect(key);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(["client_memo", "follow_up_email"]);
    const memo = await client.getPrompt({ name: "client_memo", arguments: { meeting_id: meetingId } });
    const text = (memo.messages[0]!.content as Json).text as string;
    expect(text).toContain(meetingId);
    expect(text).toContain("tpl_client_memo");
    expect(text).toContain("generate_document");
    await client.close();
  });
});

test("MCP requests are logged, counted in /metrics under /mcp, and carry the rate-limit headers", async () => {
  const response = await rawMcp(initialize("2025-11-25"), { authorization: `Bearer ${key}` });
  expect(response.status).toBe(200);
  expect(response.headers.get("x-ratelimit-limit")).toBe("100000");
  const requestId = response.headers.get("x-request-id")!;
  for (let i = 0; i < 50 && !server.lines.some((l) => l.includes(requestId)); i++) await Bun.sleep(100);
  const logged = JSON.parse(server.lines.find((l) => l.includes(requestId))!) as Json;
  expect(logged).toMatchObject({ method: "POST", path: "/mcp", status: 200 });
  expect(JSON.stringify(server.lines)).not.toContain(key);
  const metrics = await (await server.api("/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  expect(metrics).toMatch(/verbatim_http_requests_total\{method="POST",route="\/mcp",status="200"\} [1-9]/);
  expect(metrics).toMatch(/verbatim_http_requests_total\{method="POST",route="\/mcp",status="401"\} [1-9]/);
});

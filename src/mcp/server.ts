import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { apiActor, type Actor } from "../auth/actor.ts";
import type { Principal } from "../auth/authenticate.ts";
import { SCOPES } from "../auth/scopes.ts";
import { ApiError } from "../errors/api-error.ts";
import { readJsonBody } from "../http/body.ts";
import { contextOf } from "../http/request-context.ts";
import { access, checkAccess, type Access } from "../http/route.ts";
import { listMeetingsQuery } from "../meetings/schema.ts";
import { mcpTools, scopesOf, type McpApps, type McpTool } from "./tools.ts";

/** Where the MCP server answers: a root path of its own, beside /api and the web app. */
export const MCP_PATH = "/mcp";

/** Where the protected resource metadata of the MCP endpoint is served (RFC 9728's path-scoped variant). */
export const MCP_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp";

/** The meetings resources/list names: the most recent completed ones (issue 24). */
export const RECENT_MEETING_RESOURCES = 20;

/** A JSON-RPC body larger than this is refused: a tool call's arguments are a few kilobytes. */
const MAX_MCP_BODY_BYTES = 256 * 1024;

/** The resources: `verbatim://meetings/{meeting_id}/<name>`, Markdown as the REST API's format=md serves it. */
const RESOURCE_KINDS = [
  { name: "transcript", has: "has_transcript", label: "Transcript", title: "A meeting's transcript", description: "The transcript of a meeting as Markdown, with times and speaker names." },
  { name: "report", has: "has_summary", label: "Report", title: "A meeting's AI report", description: "The AI report of a meeting as Markdown: summary, decisions, action items." },
] as const;

/** The prompts: each names a shipped template, and is offered only while the catalogue has it. */
const PROMPTS = [
  {
    name: "client_memo",
    templateId: "tpl_client_memo",
    title: "Prepare a client memo from a meeting",
    ask: (meetingId: string, templateName: string) =>
      `Prepare a client memo from meeting ${meetingId}. Call generate_document with meeting_id "${meetingId}", template_id "tpl_client_memo" (${templateName}) and wait: true, then show me the memo. If a point in it needs checking, quote the transcript with get_transcript.`,
  },
  {
    name: "follow_up_email",
    templateId: "tpl_follow_up_email",
    title: "Draft the follow-up email of a meeting",
    ask: (meetingId: string, templateName: string) =>
      `Draft the follow-up email of meeting ${meetingId}. Call generate_document with meeting_id "${meetingId}", template_id "tpl_follow_up_email" (${templateName}) and wait: true, then show me the email ready to send, with its action items and their owners.`,
  },
];

export interface McpEndpointDeps {
  apps: McpApps;
  /** The service's public URL (known once listening): the resource metadata URL of a 401 names it. */
  publicUrl(): string;
  /**
   * The resources (RFC 8707) the built-in authorization server binds its tokens to (oauth/app.ts's
   * oauthResources): a token bound to one of them other than this endpoint was issued for another
   * resource and is refused here.
   */
  resources(): readonly string[];
  version: string;
  onUnexpectedError(error: unknown, requestId: string): void;
  sleep?(ms: number): Promise<void>;
}

/**
 * The MCP server (issue 24): the Streamable HTTP transport of the official SDK, stateless (a fresh
 * server and transport per request, so any API node answers any request and nothing is kept
 * between them), JSON responses rather than an SSE stream (every tool answers once). It
 * authenticates as the API does (the pipeline's Authenticator: API key or OAuth access token) and
 * calls the same use cases as the REST routes, with the API's channel (metering: the API wallet)
 * and "mcp" as the audit trail's channel.
 */
export function mcpEndpoint(deps: McpEndpointDeps) {
  const tools = mcpTools(deps.apps, deps.sleep);
  // A firm may replace the shipped catalogue (--templates-dir): a prompt is offered only while its template is there.
  const prompts = deps.apps.templates.list().then((templates) => PROMPTS.filter((prompt) => templates.some((t) => t.id === prompt.templateId)));
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const challengeScopes = SCOPES.filter((scope) => scope !== "webhooks" && scope !== "read:usage" && scope !== "write:meetings");

  const resourceMetadata = () => `${deps.publicUrl()}${MCP_RESOURCE_METADATA_PATH}`;

  /** The access a JSON-RPC request needs beyond a valid credential; `any` for the protocol's own methods. */
  const accessFor = (message: unknown): Access => {
    if (!message || typeof message !== "object") return access.any;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
    if (method === "tools/call" && typeof params?.name === "string") return byName.get(params.name)?.access ?? access.any;
    if (method === "resources/list") return access.allOf("read:meetings");
    if (method === "resources/read" && typeof params?.uri === "string") {
      return params.uri.endsWith("/transcript") ? access.allOf("read:transcripts") : access.allOf("read:meetings");
    }
    if (method === "prompts/get") return access.anyOf("read:meetings", "write:documents");
    return access.any;
  };

  /** RFC 6750 §3.1: a credential that was presented and refused is an invalid_token; none at all gets the bare challenge. */
  const unauthorized = (detail: string, invalidToken: boolean) =>
    jsonRpcError(401, null, -32001, detail, {
      "www-authenticate": `Bearer ${invalidToken ? 'error="invalid_token", ' : ""}resource_metadata="${resourceMetadata()}", scope="${challengeScopes.join(" ")}"`,
    });

  /**
   * RFC 8707 and the MCP authorization spec: a token is accepted only by the resource it was
   * issued for. One the authorization server bound to another of its resources (`<public>/api`)
   * is refused; one with no audience of ours to check (`admin token create`, the firm's identity
   * provider: the service's --oauth-audience) is accepted as everywhere.
   */
  const boundElsewhere = (principal: Principal) => {
    const { audience } = principal;
    return audience !== undefined && audience !== `${deps.publicUrl()}${MCP_PATH}` && deps.resources().includes(audience);
  };

  return {
    async fetch(request: Request): Promise<Response> {
      const context = contextOf(request);
      context.route = MCP_PATH;
      const { auth } = context;
      if (auth.kind !== "authenticated") return unauthorized(auth.kind === "rejected" ? auth.detail : "The MCP server needs Authorization: Bearer <API key or access token>.", auth.kind === "rejected");
      if (boundElsewhere(auth.principal)) return unauthorized(`The access token was issued for another resource (${auth.principal.audience}), not for this MCP server.`, true);
      // Stateless: no SSE stream to open with GET, no session to end with DELETE (the transport spec lets a server answer 405).
      if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
      let body: unknown;
      try {
        body = await readJsonBody(request, MAX_MCP_BODY_BYTES);
      } catch (error) {
        if (error instanceof ApiError) return jsonRpcError(error.status, null, -32700, error.message);
        throw error;
      }
      const principal: Principal = { ...auth.principal, clientAddress: context.clientAddress };
      // A scope the credential lacks is refused at the HTTP level, as the MCP authorization spec's
      // scope challenge says (403 insufficient_scope naming the scopes), so a client can step up.
      for (const message of Array.isArray(body) ? body : [body]) {
        const rule = accessFor(message);
        try {
          checkAccess(rule, principal);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          const id = (message as { id?: unknown }).id;
          return jsonRpcError(403, typeof id === "string" || typeof id === "number" ? id : null, -32003, error.message, {
            "www-authenticate": `Bearer error="insufficient_scope", scope="${scopesOf(rule).join(" ")}", resource_metadata="${resourceMetadata()}", error_description="${error.message}"`,
          });
        }
      }
      const actor: Actor = { ...apiActor(principal), auditChannel: "mcp" };
      const server = buildServer(actor, context.requestId, await prompts);
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, { parsedBody: body });
      } finally {
        // A JSON response is complete once handleRequest resolves: nothing of this request stays.
        void server.close();
      }
    },
  };

  function buildServer(actor: Actor, requestId: string, offered: typeof PROMPTS): McpServer {
    const server = new McpServer(
      { name: "verbatim", title: "Verbatim", version: deps.version },
      {
        instructions:
          "Verbatim holds this person's recorded meetings: transcripts with speaker names, AI reports, and documents generated from them. Find a meeting with search_meetings, read it with get_report (fast) or get_transcript / get_export_part (word for word), and write documents with generate_document and a template from list_templates.",
      },
    );
    for (const tool of tools) registerTool(server, tool, actor, requestId);
    registerResources(server, actor);
    registerPrompts(server, offered);
    return server;
  }

  function registerTool(server: McpServer, tool: McpTool, actor: Actor, requestId: string) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input.shape,
        outputSchema: tool.output.shape,
        annotations: { readOnlyHint: tool.readOnly, openWorldHint: false, ...(tool.readOnly ? {} : { destructiveHint: false, idempotentHint: false }) },
      },
      async (args: Record<string, unknown>) => {
        try {
          const result = await tool.run(actor, args);
          return { structuredContent: result as Record<string, unknown>, content: [{ type: "text" as const, text: JSON.stringify(result) }] };
        } catch (error) {
          // A refusal of the use case (not found, not ready, a wallet too low) is the model's to read and act on.
          if (error instanceof ApiError) return toolError(error);
          deps.onUnexpectedError(error, requestId);
          return { isError: true, content: [{ type: "text" as const, text: "internal_error: the service failed unexpectedly." }] };
        }
      },
    );
  }

  function registerResources(server: McpServer, actor: Actor) {
    const recent = async () => (await deps.apps.meetings.list(actor, listMeetingsQuery.parse({ limit: RECENT_MEETING_RESOURCES, status: "completed" }))).data;
    for (const kind of RESOURCE_KINDS) {
      server.registerResource(
        kind.name,
        new ResourceTemplate(`verbatim://meetings/{meeting_id}/${kind.name}`, {
          list: async () => ({
            resources: (await recent())
              .filter((m) => m[kind.has])
              .map((m) => ({ uri: `verbatim://meetings/${m.id}/${kind.name}`, name: `${kind.name}-${m.id}`, title: `${kind.label}: ${m.title}`, mimeType: "text/markdown" })),
          }),
        }),
        { title: kind.title, description: kind.description, mimeType: "text/markdown" },
        async (uri, variables) => {
          const id = meetingIdOf(variables);
          const file = kind.name === "transcript" ? await deps.apps.transcripts.file(actor, id, "md") : await deps.apps.reports.markdownFile(actor, id);
          return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: file.body }] };
        },
      );
    }
  }

  function registerPrompts(server: McpServer, offered: typeof PROMPTS) {
    for (const prompt of offered) {
      server.registerPrompt(
        prompt.name,
        { title: prompt.title, description: `${prompt.title}, with the shipped template ${prompt.templateId}.`, argsSchema: { meeting_id: z.uuid().describe("The meeting's id (search_meetings).") } },
        async ({ meeting_id }) => {
          const template = await deps.apps.templates.get(prompt.templateId);
          return { messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt.ask(meeting_id, template.name) } }] };
        },
      );
    }
  }
}

/** A refusal as a tool result: the problem's code and detail, which a model can act on. */
function toolError(error: ApiError) {
  const problem = { code: error.code, detail: error.message, ...(error.errors ? { errors: error.errors } : {}) };
  return { isError: true, content: [{ type: "text" as const, text: JSON.stringify(problem) }] };
}

/** The meeting id of a resource URI: a UUID, or the lookup is refused like a malformed REST path. */
function meetingIdOf(variables: Record<string, string | string[]>): string {
  const id = variables.meeting_id;
  const parsed = z.uuid().safeParse(Array.isArray(id) ? id[0] : id);
  if (!parsed.success) throw ApiError.notFound("Meeting");
  return parsed.data;
}

function jsonRpcError(status: number, id: string | number | null, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }), { status, headers: { "content-type": "application/json", ...headers } });
}

export type McpEndpoint = ReturnType<typeof mcpEndpoint>;

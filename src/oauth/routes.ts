import { readBounded, readJsonBody } from "../http/body.ts";
import { clientAddressOf } from "../http/request-context.ts";
import { access, defineRoute, type Reply } from "../http/route.ts";
import { SCOPES } from "../auth/scopes.ts";
import type { OAuthApp, TokenReply } from "./app.ts";
import type { RegistrationLimit } from "./registration-limit.ts";
import {
  authorizationServerMetadata,
  oauthErrorSchema,
  protectedResourceMetadata,
  registrationBody,
  registrationResponse,
  revokeForm,
  tokenForm,
  tokenResponse,
} from "./schema.ts";

/** Bodies of the token and revocation endpoints: a few short parameters. */
const MAX_FORM_BYTES = 16 * 1024;
const MAX_REGISTRATION_BYTES = 16 * 1024;
const FORM_TYPE = "application/x-www-form-urlencoded";

/** RFC 6749 5.1: token responses and their errors are never stored by a cache. */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

function oauthErrorReply(status: number, error: string, description: string, headers: Record<string, string> = {}): Reply {
  return { status, body: { error, error_description: description }, headers: { ...NO_STORE, ...headers } };
}

/**
 * The form of a token or revocation request: application/x-www-form-urlencoded, at most 16 KB, no
 * parameter twice (RFC 6749 3.2); an error reply otherwise.
 */
async function readForm(request: Request): Promise<URLSearchParams | Reply> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== FORM_TYPE) return oauthErrorReply(400, "invalid_request", `The body must be ${FORM_TYPE}.`);
  let bytes: Uint8Array;
  try {
    bytes = await readBounded(request, MAX_FORM_BYTES);
  } catch {
    return oauthErrorReply(400, "invalid_request", `The body must be at most ${MAX_FORM_BYTES} bytes, sent at once.`);
  }
  const form = new URLSearchParams(new TextDecoder().decode(bytes));
  const names = [...form.keys()];
  if (new Set(names).size !== names.length) return oauthErrorReply(400, "invalid_request", "A parameter is repeated.");
  return form;
}

function tokenReply(reply: TokenReply): Reply {
  return { status: reply.status, body: reply.body, headers: { ...NO_STORE } };
}

/**
 * The OAuth 2.1 authorization server (issue 24) at the root, beside /api: its metadata (RFC 8414),
 * the protected resources' (RFC 9728), registration (RFC 7591), token and revocation (RFC 7009).
 * /oauth/authorize is the web app's (the consent page).
 */
export function oauthRoutes(deps: { oauth: OAuthApp; cimd: boolean; dcr: boolean; registrations: RegistrationLimit; now: () => number }) {
  const { oauth } = deps;
  const url = (path: string) => `${oauth.issuer()}${path}`;
  const resourceMetadata = (resource: string) => ({
    resource,
    authorization_servers: [oauth.issuer()],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Verbatim",
  });
  const routes = [
    defineRoute({
      method: "GET",
      path: "/.well-known/oauth-authorization-server",
      operationId: "getOAuthAuthorizationServerMetadata",
      summary: "The OAuth 2.1 authorization server's metadata (RFC 8414)",
      tag: "OAuth",
      access: access.public,
      documentedAtRoot: true,
      responses: { 200: { description: "The metadata", schema: authorizationServerMetadata } },
      handle: () => ({
        status: 200,
        body: {
          issuer: oauth.issuer(),
          authorization_endpoint: url("/oauth/authorize"),
          token_endpoint: url("/oauth/token"),
          ...(deps.dcr ? { registration_endpoint: url("/oauth/register") } : {}),
          revocation_endpoint: url("/oauth/revoke"),
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          revocation_endpoint_auth_methods_supported: ["none"],
          scopes_supported: [...SCOPES],
          client_id_metadata_document_supported: deps.cimd,
          authorization_response_iss_parameter_supported: true,
        },
      }),
    }),
    // RFC 9728 for each protected resource: the REST API, and (path-scoped) the MCP endpoint.
    ...[
      { suffix: "", resource: "/api", operationId: "getOAuthProtectedResourceMetadata", summary: "The REST API's protected resource metadata (RFC 9728)" },
      { suffix: "/mcp", resource: "/mcp", operationId: "getMcpProtectedResourceMetadata", summary: "The MCP endpoint's protected resource metadata (RFC 9728, path-scoped)" },
    ].map(({ suffix, resource, operationId, summary }) =>
      defineRoute({
        method: "GET",
        path: `/.well-known/oauth-protected-resource${suffix}`,
        operationId,
        summary,
        tag: "OAuth",
        access: access.public,
        documentedAtRoot: true,
        responses: { 200: { description: "The metadata", schema: protectedResourceMetadata } },
        handle: () => ({ status: 200, body: resourceMetadata(url(resource)) }),
      }),
    ),
    defineRoute({
      method: "POST",
      path: "/oauth/token",
      operationId: "oauthToken",
      summary: "Exchange an authorization code (PKCE S256) or a refresh token (rotated on use) for an access token",
      tag: "OAuth",
      access: access.public,
      documentedAtRoot: true,
      requestBodyDoc: { [FORM_TYPE]: tokenForm },
      responses: {
        200: { description: "The tokens (RFC 6749 5.1)", schema: tokenResponse },
        400: { description: "An OAuth error (RFC 6749 5.2): invalid_request, invalid_grant, invalid_scope, unsupported_grant_type", schema: oauthErrorSchema },
      },
      handle: async ({ request }) => {
        const form = await readForm(request);
        if (!(form instanceof URLSearchParams)) return form;
        return tokenReply(await oauth.token(form, clientAddressOf(request)?.() ?? null));
      },
    }),
    defineRoute({
      method: "POST",
      path: "/oauth/revoke",
      operationId: "oauthRevoke",
      summary: "Revoke a refresh token or access token, and the authorization it belongs to (RFC 7009); 200 whatever the token",
      tag: "OAuth",
      access: access.public,
      documentedAtRoot: true,
      requestBodyDoc: { [FORM_TYPE]: revokeForm },
      responses: {
        200: { description: "Revoked, or not a token of this server" },
        400: { description: "No token parameter (RFC 7009 2.2.1)", schema: oauthErrorSchema },
      },
      handle: async ({ request }) => {
        const form = await readForm(request);
        if (!(form instanceof URLSearchParams)) return form;
        const token = form.get("token");
        if (!token) return oauthErrorReply(400, "invalid_request", "token is required");
        await oauth.revokeToken(token, clientAddressOf(request)?.() ?? null);
        return { status: 200, headers: { ...NO_STORE } };
      },
    }),
  ];
  if (!deps.dcr) return routes;
  routes.push(
    defineRoute({
      method: "POST",
      path: "/oauth/register",
      operationId: "oauthRegister",
      summary: "Register a public client (RFC 7591): at most 10 redirect URIs, rate-limited per address",
      tag: "OAuth",
      access: access.public,
      documentedAtRoot: true,
      requestBodyDoc: { "application/json": registrationBody },
      responses: {
        201: { description: "The client", schema: registrationResponse },
        400: { description: "invalid_redirect_uri or invalid_client_metadata (RFC 7591 3.2.2)", schema: oauthErrorSchema },
        429: { description: "Too many registrations from this address this hour", schema: oauthErrorSchema },
      },
      handle: async ({ request }) => {
        const wait = deps.registrations.take(clientAddressOf(request)?.() ?? "unknown", deps.now());
        if (wait > 0) return oauthErrorReply(429, "too_many_requests", "Too many client registrations from this address; try again later.", { "retry-after": String(wait) });
        let body: unknown;
        try {
          body = await readJsonBody(request, MAX_REGISTRATION_BYTES);
        } catch {
          return oauthErrorReply(400, "invalid_client_metadata", `The body must be a JSON object of at most ${MAX_REGISTRATION_BYTES} bytes.`);
        }
        const registered = await oauth.register(body);
        if (!registered.ok) return oauthErrorReply(400, registered.error, registered.description);
        return { status: 201, body: registered.body, headers: { ...NO_STORE } };
      },
    }),
  );
  return routes;
}

import { z } from "zod";
import { MAX_REDIRECT_URIS, MAX_URI_LENGTH } from "./redirect-uris.ts";

export const MAX_CLIENT_NAME = 200;

/**
 * The client metadata both ways of identifying a client share (RFC 7591 section 2): public
 * clients only, the authorization code grant and refresh tokens only. Other members are ignored.
 */
const clientMetadata = {
  redirect_uris: z.array(z.string().max(MAX_URI_LENGTH)).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(MAX_CLIENT_NAME).optional(),
  token_endpoint_auth_method: z.literal("none", { error: "public clients only: token_endpoint_auth_method must be none" }).optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).max(2).optional(),
  response_types: z.array(z.literal("code")).max(1).optional(),
};

/** POST /oauth/register (RFC 7591). */
export const registrationBody = z.looseObject(clientMetadata);
export type RegistrationBody = z.output<typeof registrationBody>;

/** A Client ID Metadata Document: the same metadata, and client_id (equal to its URL). */
export const clientMetadataDocument = z.looseObject({ client_id: z.string().max(MAX_URI_LENGTH), ...clientMetadata });

/** What POST /oauth/register answers (201). */
export const registrationResponse = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.literal("none"),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
});

/** An RFC 6749 section 5.2 error (token, revocation and registration endpoints). */
export const oauthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });

/** A successful token response (RFC 6749 section 5.1). */
export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
});

/** POST /oauth/token's form, documented (the route reads it itself: application/x-www-form-urlencoded). */
export const tokenForm = z.object({
  grant_type: z.enum(["authorization_code", "refresh_token"]),
  code: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  client_id: z.string(),
  refresh_token: z.string().optional(),
  resource: z.string().optional(),
  scope: z.string().optional(),
});

/** POST /oauth/revoke's form (RFC 7009). */
export const revokeForm = z.object({ token: z.string(), token_type_hint: z.enum(["access_token", "refresh_token"]).optional(), client_id: z.string().optional() });

/** RFC 8414 metadata (the members this server publishes). */
export const authorizationServerMetadata = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string().optional(),
  revocation_endpoint: z.string(),
  response_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  client_id_metadata_document_supported: z.boolean(),
  authorization_response_iss_parameter_supported: z.boolean(),
});

/** RFC 9728 protected resource metadata. */
export const protectedResourceMetadata = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
});

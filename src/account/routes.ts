import type { Principal } from "../auth/authenticate.ts";
import { renderUser } from "../auth/users.ts";
import { WINDOW_SECONDS } from "../http/rate-limit.ts";
import { access, defineRoute } from "../http/route.ts";
import { toRfc3339 } from "../lib/time.ts";
import { API_VERSION } from "../lib/version.ts";
import { accountSchema } from "./schema.ts";

/**
 * The account body up to its rate limit, serialized once per principal: an API key's principal is
 * shared by all its requests (auth/authenticate.ts), and only the rate limit changes between them.
 * It was a tenth of a GET /v1/me request's own time (bench/api.ts).
 */
const accountJsonHeads = new WeakMap<Principal, string>();
const API_VERSION_JSON = JSON.stringify(API_VERSION);

function accountJsonHead(principal: Principal): string {
  let head = accountJsonHeads.get(principal);
  if (head === undefined) {
    const account = {
      object: "account",
      user: renderUser(principal.user),
      plan: principal.user.plan,
      credential: {
        type: principal.credential.type,
        id: principal.credential.id,
        name: principal.credential.name,
        scopes: principal.credential.scopes,
        expires_at: principal.credential.expiresAt === null ? null : toRfc3339(principal.credential.expiresAt * 1000),
      },
    };
    // '{"object":…,"credential":{…}' and a comma: the rate limit and version follow.
    head = `${JSON.stringify(account).slice(0, -1)},`;
    accountJsonHeads.set(principal, head);
  }
  return head;
}

export function accountRoutes() {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/me",
      operationId: "getAccount",
      summary: "The account, plan, credential and rate limit of the caller",
      tag: "Account",
      access: access.any,
      responses: { 200: { description: "The account", schema: accountSchema } },
      handle: ({ principal, rate }) => ({
        status: 200,
        json:
          `${accountJsonHead(principal)}"rate_limit":{"limit":${rate.limit},"remaining":${rate.remaining},` +
          `"reset":${rate.reset},"window_seconds":${WINDOW_SECONDS}},"api_version":${API_VERSION_JSON}}`,
      }),
    }),
  ];
}

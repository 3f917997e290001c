import { renderUser } from "../auth/users.ts";
import { WINDOW_SECONDS } from "../http/middleware/rate-limit/index.ts";
import { access, defineRoute } from "../http/route.ts";
import { toRfc3339 } from "../lib/time.ts";
import { API_VERSION } from "../lib/version.ts";
import { accountSchema } from "./schema.ts";

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
        body: {
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
          rate_limit: { limit: rate.limit, remaining: rate.remaining, reset: rate.reset, window_seconds: WINDOW_SECONDS },
          api_version: API_VERSION,
        },
      }),
    }),
  ];
}

import type { Db } from "../db/client.ts";
import { access, defineRoute } from "../http/route.ts";
import type { Clock } from "../lib/time.ts";
import { listLedger, renderUsage } from "./query.ts";
import { ledgerPageSchema, ledgerQuery, usageSchema } from "./schema.ts";
import type { BillingSettings } from "./settings.ts";

export function usageRoutes(deps: { db: Db; clock: Clock; billing: BillingSettings }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/usage",
      operationId: "getUsage",
      summary: "This UTC month's usage: wallet, on-demand billing, totals, thresholds and rates",
      tag: "Usage",
      access: access.allOf("read:usage"),
      responses: { 200: { description: "The usage object", schema: usageSchema } },
      handle: ({ principal }) => ({
        status: 200,
        body: renderUsage(deps.db, deps.billing, { userId: principal.user.id, plan: principal.user.plan }, deps.clock.now()),
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/usage/ledger",
      operationId: "listLedger",
      summary: "The month's ledger lines (one per metered operation), newest first",
      tag: "Usage",
      access: access.allOf("read:usage"),
      query: ledgerQuery,
      responses: { 200: { description: "A page of ledger lines", schema: ledgerPageSchema } },
      handle: ({ principal, query }) => ({ status: 200, body: listLedger(deps.db, principal.user.id, query, deps.clock.now()) }),
    }),
  ];
}

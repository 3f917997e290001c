import { apiActor } from "../auth/actor.ts";
import { access, defineRoute } from "../http/route.ts";
import type { UsageApp } from "./app.ts";
import { renderLedgerLine, renderUsage } from "./render.ts";
import { ledgerPageSchema, ledgerQuery, usageSchema } from "./schema.ts";
import type { BillingSettings } from "./settings.ts";

export function usageRoutes(deps: { usage: UsageApp; billing: BillingSettings }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/usage",
      operationId: "getUsage",
      summary: "This UTC month's usage: wallet, on-demand billing, totals, thresholds and rates",
      tag: "Usage",
      access: access.allOf("read:usage"),
      responses: { 200: { description: "The usage object", schema: usageSchema } },
      handle: async ({ principal }) => {
        const summary = await deps.usage.summary(apiActor(principal));
        return { status: 200, body: renderUsage(deps.billing, summary.plan, summary) };
      },
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
      handle: async ({ principal, query }) => {
        const page = await deps.usage.ledger(apiActor(principal), query);
        return { status: 200, body: { ...page, data: page.data.map(renderLedgerLine) } };
      },
    }),
  ];
}

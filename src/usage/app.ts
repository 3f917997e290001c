import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import type { Page } from "../http/pagination.ts";
import type { Clock } from "../lib/time.ts";
import { grantCredits, setSpendCap } from "./account-store.ts";
import type { Balance } from "./balance-store.ts";
import type { BillingSettings } from "./settings.ts";
import { apiMonth, ledgerPage, readWebappUsage, type LedgerRow, type MonthTotals } from "./store.ts";
import type { WebappUsage } from "./webapp-quota-store.ts";

export type { LedgerRow, MonthTotals } from "./store.ts";
export type { WebappUsage } from "./webapp-quota-store.ts";
export type { BillingSettings } from "./settings.ts";
export { renderLedgerLineWithChannel, renderUsage, type Usage } from "./render.ts";

/** The API side of an account's month: its plan, wallet and on-demand balance, and its operations' totals. */
export interface UsageSummary {
  plan: string;
  balance: Balance;
  totals: MonthTotals;
}

/** Usage's use cases: GET /v1/usage, GET /v1/usage/ledger and the web app's usage page call these. */
export function usageApp(deps: { conn: Conn; clock: Clock; billing: BillingSettings }) {
  return {
    /** This UTC month's API wallet, on-demand billing and totals (the web app shows the same for the account). */
    async summary(actor: Actor): Promise<UsageSummary> {
      const month = await apiMonth(deps.conn, deps.billing, actor.account, deps.clock.now());
      return { plan: actor.account.plan, ...month };
    },

    /**
     * The month's ledger lines, newest first (`period` another month): through the API its lines
     * only, in the web app both channels' (the web app's own lines are never the API's business).
     */
    ledger(actor: Actor, query: { limit: number; cursor?: string; period?: string }): Promise<Page<LedgerRow>> {
      return ledgerPage(deps.conn, actor.account.userId, query, deps.clock.now(), actor.channel === "api" ? "api" : "all");
    },

    /** The web app's monthly quotas: minutes of audio and documents used, held by work in flight, and the plan's quota. */
    webappQuotas(actor: Actor): Promise<WebappUsage> {
      return readWebappUsage(deps.conn, deps.billing, actor.account, deps.clock.now());
    },
  };
}

export type UsageApp = ReturnType<typeof usageApp>;

/**
 * The operator's usage commands (verbatim admin cap set, credits grant): on an account named by
 * the operator, not by who is acting, so they take the user's id.
 */
export function usageAdminApp(deps: { conn: Conn; clock: Clock }) {
  return {
    /** Turns on-demand billing on with a monthly cap (minor units), or off with null. */
    setSpendCap(userId: string, capMinor: number | null): Promise<void> {
      return setSpendCap(deps.conn, userId, capMinor, deps.clock.now());
    },

    /** Credits added to the account's wallet for this UTC month; answers the month. */
    grantCredits(userId: string, amountMinor: number, note: string | null): Promise<{ period: string }> {
      return grantCredits(deps.conn, userId, amountMinor, note, deps.clock.now());
    },
  };
}

export type UsageAdminApp = ReturnType<typeof usageAdminApp>;

import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { balanceOf } from "./balance.ts";
import type { BillingSettings } from "./settings.ts";

/**
 * Refuses new processing the account cannot pay for (SPEC 7 and 8): 402 insufficient_balance when
 * neither the wallet nor on-demand billing can, 402 spend_cap_reached when on-demand billing is on
 * and its cap is spent. Each admitted operation still running holds a share of the balance, so
 * concurrent requests cannot all be admitted against a wallet that pays for a few. Runs inside the
 * creating transaction (BEGIN IMMEDIATE), so two requests are admitted one after the other.
 */
export function assertCanPay(tx: Queryable, settings: BillingSettings, account: { userId: string; plan: string }, now: number): void {
  const balance = balanceOf(tx, settings, account, now);
  const held = balance.running * settings.holdPerOperation;
  const available = balance.walletRemaining + balance.onDemandRemaining - held;
  if (available >= settings.holdPerOperation && available > 0) return;
  if (balance.spendCap !== null && balance.walletRemaining <= held) {
    throw new ApiError(
      "spend_cap_reached",
      `This month's wallet is used up and on-demand billing reached its spend cap (${balance.spendCap} ${settings.currency} minor units). Nothing was created.`,
    );
  }
  throw new ApiError("insufficient_balance", "This month's wallet is used up and no on-demand billing is set up for the account. Nothing was created.");
}

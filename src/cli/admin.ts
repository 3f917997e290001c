import { auditCommands } from "./admin/audit.ts";
import { accountCommands } from "./admin/accounts.ts";
import { billingCommands } from "./admin/billing.ts";
import { keyCommands } from "./admin/keys.ts";
import { tokenCommands } from "./admin/tokens.ts";
import { userCommands } from "./admin/users.ts";
import type { Command } from "./command.ts";

export type { Command } from "./command.ts";

/**
 * `verbatim admin ...`, one file per family of commands in admin/ (users, accounts, plans and billing,
 * API keys, access tokens, the audit trail), listed in this order by the help.
 */
export const adminCommands: Record<string, Command> = {
  ...userCommands,
  ...accountCommands,
  ...billingCommands,
  ...keyCommands,
  ...tokenCommands,
  ...auditCommands,
};

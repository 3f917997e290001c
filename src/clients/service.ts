import { numericId } from "../lib/ids.ts";
import type { ClientRow } from "./store.ts";

// What other domains use of clients/ inside their own transactions (meetings created or patched
// with a client, the meetings filter, exports): async functions over a Queryable, in the store.
export { createClient, findClientByIdOrName, findOrCreateClient, getClient, requireClient, type ClientRow } from "./store.ts";

export function renderClient(row: ClientRow) {
  return {
    id: numericId("cli", row.id),
    object: "client" as const,
    name: row.name,
    email: row.email,
    phone: row.phone,
    is_archived: row.isArchived,
    legal_hold: row.legalHold,
  };
}

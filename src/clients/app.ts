import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import { parseNumericId } from "../lib/ids.ts";
import { listClients, updateClientFlags, type ClientRow } from "./store.ts";

export type { ClientRow } from "./store.ts";
export { renderClient } from "./service.ts";

/** The client folders' use cases, for GET/PATCH /v1/clients and the web app's Clients page. */
export function clientsApp(deps: { conn: Conn }) {
  return {
    /** The account's client folders by name; archived ones only when asked, `q` a name filter. */
    list(actor: Actor, filter: { includeArchived: boolean; q?: string }): Promise<ClientRow[]> {
      return listClients(deps.conn, actor.account.userId, filter);
    },

    /**
     * Archives or unarchives one of the account's clients (cli_<n>); undefined when the account
     * has no such client (the API answers 404, the web app its 404 page). An archived client keeps
     * its meetings and can still be named by id; it is only left out of lists.
     */
    setArchived(actor: Actor, clientId: string, archived: boolean): Promise<ClientRow | undefined> {
      return this.update(actor, clientId, { isArchived: archived });
    },

    /**
     * Changes one of the account's clients: archived, and/or its legal hold (issue 23: none of
     * its meetings is deleted, by its owner or by retention, while it holds); undefined when the
     * account has no such client.
     */
    async update(actor: Actor, clientId: string, flags: { isArchived?: boolean; legalHold?: boolean }): Promise<ClientRow | undefined> {
      const id = parseNumericId("cli", clientId);
      if (id === null) return undefined;
      return updateClientFlags(deps.conn, actor.account.userId, id, flags);
    },
  };
}

export type ClientsApp = ReturnType<typeof clientsApp>;

import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import { parseNumericId } from "../lib/ids.ts";
import { listClients, setClientArchived, type ClientRow } from "./store.ts";

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
    async setArchived(actor: Actor, clientId: string, archived: boolean): Promise<ClientRow | undefined> {
      const id = parseNumericId("cli", clientId);
      if (id === null) return undefined;
      return setClientArchived(deps.conn, actor.account.userId, id, archived);
    },
  };
}

export type ClientsApp = ReturnType<typeof clientsApp>;

import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import { parseNumericId } from "../lib/ids.ts";
import { getClient, listClients, nameClient, updateClientFlags, type ClientRow, type NamingOutcome } from "./store.ts";
import { run } from "../db/conn.ts";

export type { ClientRow, NamingOutcome } from "./store.ts";
/** The longest client folder name (as a meeting's `client.name`). */
export const MAX_CLIENT_NAME = 200;
export { renderClient } from "./service.ts";

/** The client folders' use cases, for GET/PATCH /v1/clients and the web app's Clients page. */
export function clientsApp(deps: { conn: Conn; now?: () => number }) {
  const now = deps.now ?? Date.now;
  /** A name as a folder holds it: trimmed, spaces folded; null when empty or longer than MAX_CLIENT_NAME. */
  const cleanName = (typed: string): string | null => {
    const name = typed.replace(/\s+/g, " ").trim();
    return name && [...name].length <= MAX_CLIENT_NAME ? name : null;
  };
  return {
    /** One of the account's clients (archived too), by cli_<n>; undefined for any other. */
    async get(actor: Actor, clientId: string): Promise<ClientRow | undefined> {
      const id = parseNumericId("cli", clientId);
      return id === null ? undefined : run(deps.conn, (q) => getClient(q, actor.account.userId, id));
    },

    /** A new client folder named `typed`; "invalid_name" when it is empty or too long, "name_taken" when another folder has the name. */
    async create(actor: Actor, typed: string): Promise<NamingOutcome | { kind: "invalid_name" }> {
      const name = cleanName(typed);
      if (name === null) return { kind: "invalid_name" };
      return nameClient(deps.conn, actor.account.userId, name, null, now());
    },

    /** Renames one of the account's clients (as create answers; "not_found" for any other id). */
    async rename(actor: Actor, clientId: string, typed: string): Promise<NamingOutcome | { kind: "invalid_name" }> {
      const id = parseNumericId("cli", clientId);
      if (id === null) return { kind: "not_found" };
      const name = cleanName(typed);
      if (name === null) return { kind: "invalid_name" };
      return nameClient(deps.conn, actor.account.userId, name, id, now());
    },

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

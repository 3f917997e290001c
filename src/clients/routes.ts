import { z } from "zod";
import type { Db } from "../db/client.ts";
import { access, defineRoute } from "../http/route.ts";
import { clientSchema, listClientsQuery } from "./schema.ts";
import { listClients, renderClient } from "./service.ts";

export function clientRoutes(deps: { db: Db }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/clients",
      operationId: "listClients",
      summary: "The account's client folders, by name",
      tag: "Clients",
      access: access.allOf("read:meetings"),
      query: listClientsQuery,
      responses: { 200: { description: "Client folders", schema: z.object({ data: z.array(clientSchema) }) } },
      handle: ({ principal, query }) => ({
        status: 200,
        body: {
          data: listClients(deps.db, principal.user.id, { includeArchived: query.include_archived, q: query.q }).map(renderClient),
        },
      }),
    }),
  ];
}

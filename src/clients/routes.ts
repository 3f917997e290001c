import { z } from "zod";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { access, defineRoute } from "../http/route.ts";
import { parseNumericId } from "../lib/ids.ts";
import { clientParams, clientSchema, listClientsQuery, patchClientBody } from "./schema.ts";
import { listClients, renderClient, setClientArchived } from "./service.ts";

export function clientRoutes(deps: { db: Db }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/clients",
      operationId: "listClients",
      summary: "The account's client folders, by name; archived ones only with include_archived=true",
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
    defineRoute({
      method: "PATCH",
      path: "/api/v1/clients/:client_id",
      operationId: "updateClient",
      summary: "Archive a client folder (is_archived true: hidden from the list, its meetings kept) or bring it back (false)",
      tag: "Clients",
      access: access.allOf("write:meetings"),
      params: clientParams,
      body: patchClientBody,
      responses: { 200: { description: "The client", schema: clientSchema } },
      errors: ["malformed_body", "unsupported_media_type"],
      handle: ({ principal, params, body }) => {
        const client = setClientArchived(deps.db, principal.user.id, parseNumericId("cli", params.client_id)!, body.is_archived);
        if (!client) throw ApiError.notFound(`Client ${params.client_id}`);
        return { status: 200, body: renderClient(client) };
      },
    }),
  ];
}

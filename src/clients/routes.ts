import { z } from "zod";
import { apiActor } from "../auth/actor.ts";
import { ApiError } from "../errors/api-error.ts";
import { access, defineRoute } from "../http/route.ts";
import type { ClientsApp } from "./app.ts";
import { clientParams, clientSchema, listClientsQuery, patchClientBody } from "./schema.ts";
import { renderClient } from "./service.ts";

export function clientRoutes(deps: { clients: ClientsApp }) {
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
      handle: async ({ principal, query }) => ({
        status: 200,
        body: { data: (await deps.clients.list(apiActor(principal), { includeArchived: query.include_archived, q: query.q })).map(renderClient) },
      }),
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/clients/:client_id",
      operationId: "updateClient",
      summary: "Archive a client folder (is_archived true: hidden from the list, its meetings kept) or bring it back (false); set or lift its legal hold (legal_hold)",
      tag: "Clients",
      access: access.allOf("write:meetings"),
      params: clientParams,
      body: patchClientBody,
      responses: { 200: { description: "The client", schema: clientSchema } },
      errors: ["malformed_body", "unsupported_media_type"],
      handle: async ({ principal, params, body }) => {
        const client = await deps.clients.update(apiActor(principal), params.client_id, { isArchived: body.is_archived, legalHold: body.legal_hold });
        if (!client) throw ApiError.notFound(`Client ${params.client_id}`);
        return { status: 200, body: renderClient(client) };
      },
    }),
  ];
}

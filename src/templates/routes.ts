import { z } from "zod";
import { access, defineRoute } from "../http/route.ts";
import type { TemplatesApp } from "./app.ts";
import type { Template } from "./types.ts";

export const templateSchema = z.object({
  id: z.string(),
  object: z.literal("template"),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  persona: z.string().nullable(),
});

const personaSchema = z.object({
  id: z.string(),
  object: z.literal("persona"),
  name: z.string(),
  description: z.string().nullable(),
  templates: z.number().int().meta({ description: "How many templates the persona has." }),
});

/** The prompt stays on the server: it is the firm's know-how, and clients need only to pick. */
export function renderTemplate(template: Template): z.infer<typeof templateSchema> {
  return { id: template.id, object: "template", name: template.name, description: template.description, icon: template.icon, persona: template.persona };
}

const readable = access.anyOf("read:meetings", "write:documents");

export function templateRoutes(templates: TemplatesApp) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/personas",
      operationId: "listPersonas",
      summary: "The personas: families of document templates (general, lawyer, sales, hr, medical, and the firm's own)",
      tag: "Templates",
      access: readable,
      responses: { 200: { description: "Every persona", schema: z.object({ data: z.array(personaSchema) }) } },
      handle: async () => ({ status: 200, body: { data: (await templates.personas()).map((p) => ({ id: p.id, object: "persona" as const, name: p.name, description: p.description, templates: p.templates })) } }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/templates",
      operationId: "listTemplates",
      summary: "The document templates, of one persona or all",
      tag: "Templates",
      access: readable,
      query: z.object({ persona: z.string().max(40).optional() }),
      responses: { 200: { description: "Templates", schema: z.object({ data: z.array(templateSchema) }) } },
      handle: async ({ query }) => ({ status: 200, body: { data: (await templates.list(query.persona)).map(renderTemplate) } }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/templates/:template_id",
      operationId: "getTemplate",
      summary: "One document template",
      tag: "Templates",
      access: readable,
      params: z.object({ template_id: z.string().max(80) }),
      responses: { 200: { description: "The template", schema: templateSchema } },
      handle: async ({ params }) => ({ status: 200, body: renderTemplate(await templates.get(params.template_id)) }),
    }),
  ];
}

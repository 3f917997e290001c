import { ApiError } from "../errors/api-error.ts";
import type { TemplateCatalogue } from "./catalogue.ts";
import type { Template } from "./types.ts";

/**
 * The document templates' use cases: the catalogue is the same for every account (shipped
 * templates and the firm's own), so they take no actor.
 */
export function templatesApp(catalogue: TemplateCatalogue) {
  return {
    /** The personas that have templates, with how many each has. */
    personas: async () => catalogue.personas,
    /** The templates, of one persona or all. */
    list: async (persona?: string): Promise<Template[]> => catalogue.templates.filter((t) => persona === undefined || t.persona === persona),
    /** One template; an unknown id is not found. */
    async get(id: string): Promise<Template> {
      const template = catalogue.get(id);
      if (!template) throw ApiError.notFound(`Template ${id}`);
      return template;
    },
  };
}

export type TemplatesApp = ReturnType<typeof templatesApp>;
export type { TemplateCatalogue } from "./catalogue.ts";
export type { Template } from "./types.ts";

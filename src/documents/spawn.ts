import type { TemplateCatalogue } from "../templates/catalogue.ts";

/** Documents a meeting may ask for at creation (SPEC 8). */
export const MAX_DOCUMENTS_AT_CREATION = 5;

/** The templates a meeting asked for: its document_templates, else its persona's (at most 5, in catalogue order). */
export function templatesRequested(catalogue: Pick<TemplateCatalogue, "templates">, documentTemplates: string[] | null, persona: string | null): string[] {
  if (documentTemplates?.length) return [...new Set(documentTemplates)].slice(0, MAX_DOCUMENTS_AT_CREATION);
  if (!persona) return [];
  return catalogue.templates.filter((t) => t.persona === persona).slice(0, MAX_DOCUMENTS_AT_CREATION).map((t) => t.id);
}

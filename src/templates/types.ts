/** The languages besides English a template's name and description may be given in. */
export const TEMPLATE_LANGUAGES = ["fr"] as const;
export type TemplateLanguage = (typeof TEMPLATE_LANGUAGES)[number];

/** A document template: its prompt turns a meeting's report (and transcript) into a document. */
export interface Template {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  persona: string | null;
  /**
   * The name and description in the web app's other languages (front matter `name_fr`,
   * `description_fr`); the API shows the catalogue's own words only.
   */
  translations?: Partial<Record<TemplateLanguage, { name: string; description: string | null }>>;
  /** Instructions for the report model; never shown through the API. */
  prompt: string;
  /** Where it came from, for the operator's log: a file name of the catalogue or of the firm's folder. */
  source: string;
}

export interface Persona {
  id: string;
  name: string;
  description: string | null;
}

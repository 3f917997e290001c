import type { Actor } from "../../auth/actor.ts";
import type { Template } from "../../templates/app.ts";
import type { PageFrame } from "../layout.tsx";
import type { WebKit } from "../kit.ts";
import { markdownToSafeHtml } from "../markdown.ts";
import { personaName, type DocumentPreview, type TemplateGroup } from "../pages/meeting-documents.tsx";

/** The template the document form opens on: the minutes, the one every meeting can use. */
const DEFAULT_TEMPLATE = "tpl_minutes";

/** A template's name and description in the person's language (the catalogue's own words without a translation). */
export function localTemplate(template: Pick<Template, "name" | "description" | "translations">, locale: PageFrame["locale"]) {
  const translated = locale === "en" ? undefined : template.translations?.[locale];
  return { name: translated?.name ?? template.name, description: translated?.description ?? template.description };
}

/**
 * What the meeting page's documents part shows (pages/meeting-documents.tsx): the templates grouped
 * by persona in the person's language with the default chosen, and the meeting's documents with
 * their previews. A document written from a template under its name shows the name translated.
 */
export async function documentsOfPage(kit: WebKit, actor: Actor, frame: PageFrame, meetingId: string) {
  const { templates, documents } = kit.deps.apps;
  const all = await templates.list();
  const byPersona = new Map<string | null, Template[]>();
  for (const persona of await templates.personas()) byPersona.set(persona.id, []);
  for (const template of all) {
    if (!byPersona.has(template.persona)) byPersona.set(template.persona, []);
    byPersona.get(template.persona)!.push(template);
  }
  const groups: TemplateGroup[] = [...byPersona]
    .filter(([, list]) => list.length > 0)
    .map(([id, list]) => ({
      id: id ?? "",
      name: personaName(frame.t, id),
      templates: list.map((template) => ({ id: template.id, ...localTemplate(template, frame.locale) })),
    }));
  const defaultTemplate = all.some((template) => template.id === DEFAULT_TEMPLATE) ? DEFAULT_TEMPLATE : (all[0]?.id ?? null);
  const written: DocumentPreview[] = (await documents.ofMeeting(actor, meetingId)).map((doc) => {
    const template = doc.templateId ? all.find((one) => one.id === doc.templateId) : undefined;
    const title = template && doc.title === template.name ? localTemplate(template, frame.locale).name : doc.title;
    return { id: doc.id, title, createdAt: doc.createdAt, html: markdownToSafeHtml(doc.markdown) };
  });
  return { groups, defaultTemplate, documents: written };
}

/** The words for where a document being written stands: waiting for a worker, or being written. */
export const documentStageKey = (stage: string | null) => (stage === "generating" ? "docs.stage.generating" : "docs.stage.queued");

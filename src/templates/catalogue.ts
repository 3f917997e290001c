import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseTemplateFile, TemplateFileInvalid } from "./parse.ts";
import { KNOWN_PERSONAS } from "./personas.ts";
import type { Persona, Template } from "./types.ts";

/** Largest template file read from a firm's folder. */
const MAX_FILE_BYTES = 64 * 1024;

export interface TemplateCatalogue {
  templates: Template[];
  get(id: string): Template | undefined;
  personas: (Persona & { templates: number })[];
  /** Whether a template of this id exists (a meeting's document_templates are checked against it). */
  has(id: string): boolean;
  /** Whether this persona has templates (a meeting's persona is checked against it). */
  hasPersona(id: string): boolean;
}

/**
 * The catalogue: the templates shipped in the executable, then the firm's own from
 * `customDir` (*.md files; one with a shipped template's id replaces it). A bad file is reported
 * through `log` and skipped: it never stops the service.
 */
export function loadTemplateCatalogue(input: { builtin: { file: string; text: string }[]; customDir?: string; log(line: string): void }): TemplateCatalogue {
  const byId = new Map<string, Template>();
  const add = (text: string, source: string, custom: boolean) => {
    try {
      const template = parseTemplateFile(text, source);
      const existing = byId.get(template.id);
      if (existing && !custom) throw new TemplateFileInvalid(`id ${template.id} is also used by ${existing.source}`);
      if (existing) input.log(`template ${source} replaces the shipped template ${template.id}`);
      byId.set(template.id, template);
    } catch (error) {
      if (!(error instanceof TemplateFileInvalid)) throw error;
      input.log(`warning: template ${source} skipped: ${error.message}`);
    }
  };
  for (const { file, text } of input.builtin) add(text, file, false);
  if (input.customDir) {
    let names: string[] = [];
    try {
      names = readdirSync(input.customDir).filter((n) => n.endsWith(".md")).sort();
    } catch (error) {
      input.log(`warning: the templates folder cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); only the shipped templates are available`);
    }
    for (const name of names) {
      const path = join(input.customDir, name);
      try {
        if (statSync(path).size > MAX_FILE_BYTES) {
          input.log(`warning: template ${name} skipped: larger than ${MAX_FILE_BYTES} bytes`);
          continue;
        }
        add(readFileSync(path, "utf8"), name, true);
      } catch (error) {
        input.log(`warning: template ${name} skipped: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
    }
  }
  const templates = [...byId.values()].sort((a, b) => (a.persona ?? "").localeCompare(b.persona ?? "") || a.name.localeCompare(b.name));
  const counts = new Map<string, number>();
  for (const t of templates) if (t.persona) counts.set(t.persona, (counts.get(t.persona) ?? 0) + 1);
  const personas = [
    ...KNOWN_PERSONAS.filter((p) => counts.has(p.id)),
    ...[...counts.keys()].filter((id) => !KNOWN_PERSONAS.some((p) => p.id === id)).sort().map((id) => ({ id, name: id, description: null })),
  ].map((p) => ({ ...p, templates: counts.get(p.id) ?? 0 }));
  return { templates, get: (id) => byId.get(id), personas, has: (id) => byId.has(id), hasPersona: (id) => personas.some((p) => p.id === id) };
}

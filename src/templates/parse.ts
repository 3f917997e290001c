import { parse as parseYaml } from "yaml";
import { TEMPLATE_LANGUAGES, type Template } from "./types.ts";

export const MAX_PROMPT_CHARS = 20_000;
const ID = /^tpl_[a-z0-9_]{1,60}$/;
const PERSONA = /^[a-z0-9_-]{1,40}$/;

export class TemplateFileInvalid extends Error {}

/**
 * A template file: YAML front matter between two `---` lines (id, name, description, icon,
 * persona, and name_fr, description_fr for the web app in French), then the prompt. The YAML is read by the `yaml` package; this only finds where it is.
 */
export function parseTemplateFile(text: string, source: string): Template {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text.replace(/^\uFEFF/, ""));
  if (!match) throw new TemplateFileInvalid("no front matter (a --- line, the fields, a --- line, then the prompt)");
  let fields: unknown;
  try {
    fields = parseYaml(match[1]!);
  } catch (error) {
    throw new TemplateFileInvalid(`front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) throw new TemplateFileInvalid("front matter is not a set of fields");
  const f = fields as Record<string, unknown>;
  const text_ = (name: string, required: boolean): string | null => {
    const value = f[name];
    if (value === undefined || value === null || value === "") {
      if (required) throw new TemplateFileInvalid(`${name} is missing`);
      return null;
    }
    if (typeof value !== "string") throw new TemplateFileInvalid(`${name} must be text`);
    return value.trim();
  };
  const id = text_("id", true)!;
  if (!ID.test(id)) throw new TemplateFileInvalid(`id ${JSON.stringify(id)} must look like tpl_minutes (tpl_ then lowercase letters, digits, _)`);
  const persona = text_("persona", false);
  if (persona !== null && !PERSONA.test(persona)) throw new TemplateFileInvalid(`persona ${JSON.stringify(persona)} must be lowercase letters, digits, - or _`);
  const prompt = match[2]!.trim();
  if (!prompt) throw new TemplateFileInvalid("the prompt (after the front matter) is empty");
  if (prompt.length > MAX_PROMPT_CHARS) throw new TemplateFileInvalid(`the prompt is longer than ${MAX_PROMPT_CHARS} characters`);
  const translations: Template["translations"] = {};
  for (const language of TEMPLATE_LANGUAGES) {
    const name = text_(`name_${language}`, false);
    if (name !== null) translations[language] = { name, description: text_(`description_${language}`, false) };
  }
  return { id, name: text_("name", true)!, description: text_("description", false), icon: text_("icon", false), persona, translations, prompt, source };
}

import type { Locale } from "../auth/app.ts";
import { en, type MessageKey } from "./messages/en.ts";
import { fr } from "./messages/fr.ts";

export type { MessageKey };

/** The web app's languages; the strings are in messages/, one file a language. */
const catalogues: Record<Locale, Record<MessageKey, string>> = { en, fr };

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const messages = catalogues[locale];
  return (key, values) => messages[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values?.[name] ?? `{${name}}`));
}

/** The user's saved language, else the first of en/fr in Accept-Language, else English. */
export function pickLocale(saved: Locale | null, acceptLanguage: string | null): Locale {
  if (saved) return saved;
  for (const part of (acceptLanguage ?? "").split(",")) {
    const tag = part.split(";")[0]!.trim().toLowerCase();
    if (tag.startsWith("fr")) return "fr";
    if (tag.startsWith("en")) return "en";
  }
  return "en";
}

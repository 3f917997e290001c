/**
 * The meeting's language: normalised codes, names for the prompt, and the report's fixed wording:
 * its section headings, declared here once for the Markdown (markdown.ts) and the merge prompt's
 * part reports (prompt.ts).
 */

export interface ReportWording {
  summary: string;
  keyTakeaways: string;
  actionItems: string;
  decisions: string;
  minutes: string;
  owner: string;
  due: string;
  none: string;
  /** The title when the model gives none: "Meeting of 2024-06-01". */
  fallbackTitle(date: string): string;
}

const WORDING: Record<string, ReportWording> = {
  en: {
    summary: "Summary",
    keyTakeaways: "Key takeaways",
    actionItems: "Action items",
    decisions: "Decisions",
    minutes: "Minutes",
    owner: "Owner",
    due: "Due",
    none: "None.",
    fallbackTitle: (date) => `Meeting of ${date}`,
  },
  fr: {
    summary: "Résumé",
    keyTakeaways: "Points clés",
    actionItems: "Actions à mener",
    decisions: "Décisions",
    minutes: "Compte rendu",
    owner: "Responsable",
    due: "Échéance",
    none: "Aucun élément.",
    fallbackTitle: (date) => `Réunion du ${date}`,
  },
  de: {
    summary: "Zusammenfassung",
    keyTakeaways: "Wichtigste Punkte",
    actionItems: "Aufgaben",
    decisions: "Entscheidungen",
    minutes: "Protokoll",
    owner: "Verantwortlich",
    due: "Fällig",
    none: "Keine.",
    fallbackTitle: (date) => `Besprechung vom ${date}`,
  },
  es: {
    summary: "Resumen",
    keyTakeaways: "Puntos clave",
    actionItems: "Tareas",
    decisions: "Decisiones",
    minutes: "Acta",
    owner: "Responsable",
    due: "Fecha límite",
    none: "Ninguno.",
    fallbackTitle: (date) => `Reunión del ${date}`,
  },
};

/** "fr-FR", "FR", "fr_CA" → "fr"; "french" → "fr" for the languages with wording; null when unknown or empty. */
export function normalizeLanguage(language: string | null | undefined): string | null {
  if (!language) return null;
  const lower = language.trim().toLowerCase();
  if (!lower) return null;
  const byName: Record<string, string> = { english: "en", french: "fr", français: "fr", francais: "fr", german: "de", deutsch: "de", spanish: "es", español: "es" };
  if (byName[lower]) return byName[lower];
  const code = lower.split(/[-_]/)[0]!;
  return /^[a-z]{2,3}$/.test(code) ? code : null;
}

/** The fixed headings and words of the report: the language's own, English otherwise. */
export function wordingFor(language: string | null): ReportWording {
  return WORDING[normalizeLanguage(language) ?? "en"] ?? WORDING.en!;
}

/** The language's name, written in `inLanguage` ("fr" in "en" → "French"; in "fr" → "français"). */
export function languageName(code: string, inLanguage: string): string {
  try {
    const name = new Intl.DisplayNames([inLanguage], { type: "language", fallback: "none" }).of(code);
    if (name) return name;
  } catch {
    // an unusual code: fall through
  }
  return code;
}

import type { Locale } from "../auth/users.ts";

/** Every string the web app shows, in English and French. A missing key is a type error. */
const en = {
  "app.name": "Verbatim",
  "nav.meetings": "Meetings",
  "nav.record": "Record",
  "nav.settings": "Settings",
  "nav.signOut": "Sign out",
  "login.title": "Sign in",
  "login.email": "Email",
  "login.password": "Password",
  "login.submit": "Sign in",
  "login.failed": "Wrong email or password.",
  "login.throttled": "Too many failed attempts. Try again in {seconds} seconds.",
  "login.expired": "The form expired. Please sign in again.",
  "meetings.title": "Meetings",
  "meetings.search": "Search",
  "meetings.client": "Client",
  "meetings.tag": "Tag",
  "meetings.status": "Status",
  "meetings.any": "Any",
  "meetings.from": "Recorded from",
  "meetings.to": "Recorded before",
  "meetings.filter": "Filter",
  "meetings.none": "No meetings match.",
  "meetings.next": "Older meetings",
  "meetings.badFilter": "A filter is not valid: {detail}",
  "meetings.col.title": "Title",
  "meetings.col.recorded": "Recorded",
  "meetings.col.duration": "Duration",
  "meetings.untitled": "Untitled meeting",
  "status.draft": "Draft",
  "status.queued": "Queued",
  "status.processing": "Processing",
  "status.completed": "Completed",
  "status.failed": "Failed",
  "notFound.title": "Not found",
  "notFound.body": "There is no such page.",
  "error.title": "Something went wrong",
  "error.unexpected": "The service failed unexpectedly. The failure is logged; try again in a moment.",
  "forbidden.csrf": "This form was not sent by this site's page, or it expired. Reload the page and try again.",
} as const;

export type MessageKey = keyof typeof en;

const fr: Record<MessageKey, string> = {
  "app.name": "Verbatim",
  "nav.meetings": "Réunions",
  "nav.record": "Enregistrer",
  "nav.settings": "Paramètres",
  "nav.signOut": "Se déconnecter",
  "login.title": "Connexion",
  "login.email": "Adresse e-mail",
  "login.password": "Mot de passe",
  "login.submit": "Se connecter",
  "login.failed": "Adresse e-mail ou mot de passe incorrect.",
  "login.throttled": "Trop d'essais infructueux. Réessayez dans {seconds} secondes.",
  "login.expired": "Le formulaire a expiré. Veuillez vous reconnecter.",
  "meetings.title": "Réunions",
  "meetings.search": "Rechercher",
  "meetings.client": "Client",
  "meetings.tag": "Étiquette",
  "meetings.status": "Statut",
  "meetings.any": "Tous",
  "meetings.from": "Enregistrée depuis le",
  "meetings.to": "Enregistrée avant le",
  "meetings.filter": "Filtrer",
  "meetings.none": "Aucune réunion ne correspond.",
  "meetings.next": "Réunions plus anciennes",
  "meetings.badFilter": "Un filtre n'est pas valide : {detail}",
  "meetings.col.title": "Titre",
  "meetings.col.recorded": "Enregistrée le",
  "meetings.col.duration": "Durée",
  "meetings.untitled": "Réunion sans titre",
  "status.draft": "Brouillon",
  "status.queued": "En attente",
  "status.processing": "En cours",
  "status.completed": "Terminée",
  "status.failed": "Échec",
  "notFound.title": "Introuvable",
  "notFound.body": "Cette page n'existe pas.",
  "error.title": "Une erreur est survenue",
  "error.unexpected": "Le service a échoué de façon inattendue. L'erreur est consignée ; réessayez dans un instant.",
  "forbidden.csrf": "Ce formulaire n'a pas été envoyé par une page de ce site, ou il a expiré. Rechargez la page et réessayez.",
};

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

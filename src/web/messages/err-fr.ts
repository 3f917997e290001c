import type { errEn } from "./err-en.ts";

/** Issue 25 item 1's strings (error pages, field messages of refused forms), in French (spread into messages/fr.ts). */
export const errFr: Record<keyof typeof errEn, string> = {
  "err.requestId": "Identifiant de la requête : {id}. Citez-le si vous signalez ce problème.",
  "err.backHome": "Retour à vos réunions",
  "err.signIn": "Se connecter",
  "err.field.required": "Remplissez d'abord ce champ",
  "err.field.textEmpty": "Collez d'abord du texte",
};

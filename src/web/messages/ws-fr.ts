import type { wsEn } from "./ws-en.ts";

/** Les textes de l'espace de transcription (issue 25, tranche ws), en français (repris dans messages/fr.ts). */
export const wsFr: Record<keyof typeof wsEn, string> = {
  "ws.search": "Chercher dans la transcription",
  "ws.searchPrev": "Occurrence précédente",
  "ws.searchNext": "Occurrence suivante",
  "ws.searchCount": "{n} sur {m}",
  "ws.searchNone": "Aucune occurrence",
  "ws.follow": "Revenir à la ligne en cours",
  "ws.timeline": "Qui parle quand",
  "ws.turn": "{name}, de {from} à {to}",
  "ws.speakerColour": "Couleur de {name}",
  "ws.namesSaved": "Noms des intervenants mis à jour.",
  "ws.history": "Historique ({count})",
  "ws.historyWas": "Avant : « {text} »",
  "ws.historyBy": "{author}, le {date}",
  "ws.historyGlossary": "le glossaire",
  "ws.undo": "Annuler la dernière correction",
  "ws.video": "Vidéo de la réunion",
  "notice.undone": "La dernière correction de la ligne a été annulée.",
};

import type { liveEn } from "./live-en.ts";

/** The live transcript's strings (issue 25, item 8), in French (spread into messages/fr.ts). */
export const liveFr: Record<keyof typeof liveEn, string> = {
  "live.title": "Transcription en direct",
  "live.provisional": "Provisoire",
  "live.note": "Le texte s'écrit pendant que vous parlez, avec quelques secondes de retard. Il sera remplacé par la transcription complète une fois l'enregistrement terminé et traité.",
  "live.waiting": "À l'écoute… les premiers mots s'affichent quelques secondes après le début de la prise de parole.",
};

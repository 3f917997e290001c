import type { recEn } from "./rec-en.ts";

/** Issue 25 slice rec, en français (spread into messages/fr.ts). */
export const recFr: Record<keyof typeof recEn, string> = {
  "rec.pause": "Mettre en pause",
  "rec.resume": "Reprendre",
  "rec.microphone": "Micro",
  "rec.micDefault": "Celui du système",
  "rec.live": "REC",
  "rec.paused": "En pause",
  "rec.pausedStatus": "En pause : rien n'est capté avant la reprise.",
  "rec.minutes": "Enregistrement depuis {minutes} min",
  "rec.leave": "Un enregistrement est en cours. Quitter la page ? Ce qui a été capté reste dans ce navigateur, mais l'enregistrement s'arrête.",
  "rec.unfinished": "Enregistrements inachevés",
  "rec.unfinishedHelp": "Ces enregistrements n'ont pas été terminés. Faites traiter ce qui a été capté, ou supprimez-le.",
  "rec.untitled": "Enregistrement sans titre",
  "rec.draftSize": "Commencé le {date} · {megabytes} Mo reçus",
  "rec.draftEmpty": "Commencé le {date} · rien n'est arrivé",
  "rec.finish": "Traiter ce qui a été capté",
  "rec.discard": "Supprimer",
  "rec.discardConfirm": "Oui, supprimer cet enregistrement",
  "rec.discardNeedsConfirm": "Cochez « Oui, supprimer cet enregistrement » pour le supprimer.",
  "rec.discarded": "L'enregistrement inachevé a été supprimé.",
  "upload.notRecording": "Ce fichier n'est pas un enregistrement audio ou vidéo (un PDF ou un document, par exemple). Choisissez un enregistrement : MP3, WAV, M4A, WebM, MP4…",
  "upload.bytes": "{percent} % · {done} Mo sur {total} Mo",
  "upload.refused": "Le serveur a refusé le fichier : {reason}",
};

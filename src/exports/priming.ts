export type PrimingLanguage = "en" | "fr";

/** What a client sends a language model before the parts: what follows and how to read it. */
export function primingPrompt(language: PrimingLanguage, parts: number, title: string): string {
  if (language === "en") {
    return [
      `You are about to receive the export of a meeting, "${title}", in ${parts} part${parts > 1 ? "s" : ""}.`,
      "Part 1 opens with the meeting's details, its participants and its AI report; then comes the transcript,",
      "one line per utterance: [hh:mm:ss] speaker: words. Each part restates which meeting and which part it is.",
      parts > 1 ? `Read every part before you answer; reply only "OK" to each part until part ${parts} of ${parts}.` : "Answer from this export only.",
      "Quote times when you cite the transcript, and say so when the export does not contain an answer.",
    ].join("\n");
  }
  return [
    `Vous allez recevoir l'export d'une réunion, « ${title} », en ${parts} partie${parts > 1 ? "s" : ""}.`,
    "La partie 1 commence par les informations de la réunion, ses participants et son compte rendu IA ; vient ensuite la transcription,",
    "une ligne par prise de parole : [hh:mm:ss] intervenant : propos. Chaque partie rappelle de quelle réunion et de quelle partie il s'agit.",
    parts > 1 ? `Lisez toutes les parties avant de répondre ; répondez seulement « OK » à chaque partie jusqu'à la partie ${parts} sur ${parts}.` : "Répondez à partir de cet export uniquement.",
    "Citez les horodatages quand vous vous appuyez sur la transcription, et dites-le quand l'export ne contient pas la réponse.",
  ].join("\n");
}

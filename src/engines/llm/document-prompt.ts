/**
 * The prompts of document generation, in English or French like the report's: the final call that
 * writes the document, and, for a transcript that outgrows the context, the calls that take notes
 * from each part and merge notes.
 */
import type { DocumentInput } from "../types.ts";
import { languageName, normalizeLanguage } from "./language.ts";
import { promptLanguage, type Prompt } from "./prompt.ts";

export type DocumentTask =
  | { kind: "write"; body: "report" | "transcript" | "notes" }
  | { kind: "notes"; index: number; count: number; from: string; to: string }
  | { kind: "merge_notes"; count: number };

interface Texts {
  system: string;
  writeIn(name: string | null): string;
  task: string;
  instructions: string;
  meeting: string;
  date: string;
  participants: string;
  noParticipants: string;
  report: string;
  transcript: string;
  notes: string;
  intro(task: DocumentTask): string;
  closing(task: DocumentTask, maxChars: number, name: string | null): string;
}

const EN: Texts = {
  system:
    "You are a careful assistant in a professional firm. You write documents from meeting material, using only what it says: " +
    "never invent names, dates, figures or commitments. You answer with one JSON object.",
  writeIn: (name) => (name ? `Write in ${name}.` : "Write in the language of the meeting."),
  task: "The document to write:",
  instructions: "Additional instructions from the requester:",
  meeting: "Meeting",
  date: "Date",
  participants: "Participants",
  noParticipants: "not given",
  report: "AI report of the meeting:",
  transcript: "Transcript:",
  notes: "Notes taken from the transcript, in order:",
  intro: (task) =>
    task.kind === "write"
      ? "Write the document described below from this meeting's material."
      : task.kind === "notes"
        ? `Below is part ${task.index} of ${task.count} of the transcript of one meeting, from ${task.from} to ${task.to}. Take notes of everything in it that the document described below needs: facts, names, figures, dates, decisions, commitments and short quotes, with their timestamps.`
        : `Below are notes taken from the ${task.count} consecutive parts of one meeting's transcript. Merge them into one set of notes, in order, keeping every fact the document described below needs.`,
  closing: (task, maxChars, name) =>
    task.kind === "write"
      ? `Now write the document as Markdown (headings, lists and tables where they help), at most ${maxChars} characters, in the JSON field markdown. ${name ? `Write it in ${name}.` : ""}`.trim()
      : `Now write the notes, at most ${maxChars} characters, in the JSON field notes.`,
};

const FR: Texts = {
  system:
    "Tu es un assistant rigoureux dans un cabinet professionnel. Tu rédiges des documents à partir des éléments d'une réunion, en n'utilisant que ce qu'ils disent : " +
    "n'invente jamais de noms, de dates, de chiffres ni d'engagements. Tu réponds par un objet JSON.",
  writeIn: (name) => (name ? `Rédige en ${name}.` : "Rédige dans la langue de la réunion."),
  task: "Le document à rédiger :",
  instructions: "Consignes supplémentaires du demandeur :",
  meeting: "Réunion",
  date: "Date",
  participants: "Participants",
  noParticipants: "non précisés",
  report: "Compte rendu IA de la réunion :",
  transcript: "Transcription :",
  notes: "Notes prises dans la transcription, dans l'ordre :",
  intro: (task) =>
    task.kind === "write"
      ? "Rédige le document décrit ci-dessous à partir des éléments de cette réunion."
      : task.kind === "notes"
        ? `Voici la partie ${task.index} sur ${task.count} de la transcription d'une réunion, de ${task.from} à ${task.to}. Prends en note tout ce dont le document décrit ci-dessous a besoin : faits, noms, chiffres, dates, décisions, engagements et courtes citations, avec leur horodatage.`
        : `Voici les notes prises dans les ${task.count} parties successives de la transcription d'une réunion. Fusionne-les en une seule série de notes, dans l'ordre, en gardant chaque fait utile au document décrit ci-dessous.`,
  closing: (task, maxChars, name) =>
    task.kind === "write"
      ? `Rédige maintenant le document en Markdown (titres, listes et tableaux quand c'est utile), au plus ${maxChars} caractères, dans le champ JSON markdown. ${name ? `Rédige-le en ${name}.` : ""}`.trim()
      : `Rédige maintenant les notes, au plus ${maxChars} caractères, dans le champ JSON notes.`,
};

/**
 * One call's prompts. `report` goes only into the final call; `body` is the transcript, the notes
 * or one part of the transcript, as the task says.
 */
export function buildDocumentPrompt(task: DocumentTask, input: DocumentInput, report: string, body: string, maxChars: number): Prompt {
  const t = promptLanguage(input.language) === "fr" ? FR : EN;
  const code = normalizeLanguage(input.language);
  const name = code ? languageName(code, promptLanguage(input.language)) : null;
  const what = [t.task, input.task.trim()];
  if (input.instructions?.trim()) what.push("", t.instructions, input.instructions.trim());
  const sections = [t.intro(task), "", ...what, ""];
  if (task.kind === "write") {
    const people = input.meeting.participants.length ? input.meeting.participants.join(", ") : t.noParticipants;
    sections.push(`${t.meeting}: ${input.meeting.title}`, `${t.date}: ${input.meeting.date}`, `${t.participants}: ${people}`, "", t.report, report, "");
    if (task.body !== "report") sections.push(task.body === "notes" ? t.notes : t.transcript, body, "");
  } else {
    sections.push(task.kind === "notes" ? t.transcript : t.notes, body, "");
  }
  sections.push(t.closing(task, maxChars, name));
  return { system: `${t.system} ${t.writeIn(name)}`, user: sections.join("\n") };
}

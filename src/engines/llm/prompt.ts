/**
 * The prompts: a system prompt and one user prompt per kind of call (the whole meeting, one part
 * of it, or the merge of the parts' reports), written in English or French, and asking for the
 * report in the meeting's language.
 */
import type { ReportInput, StructuredReport } from "../types.ts";
import { languageName, normalizeLanguage, wordingFor } from "./language.ts";
import type { ReportLimits } from "./schema.ts";

export type PromptTask =
  | { kind: "single" }
  | { kind: "chunk"; index: number; count: number; from: string; to: string }
  | { kind: "merge"; count: number };

export interface Prompt {
  system: string;
  user: string;
}

type Segment = ReportInput["transcript"][number];

/** "[mm:ss]", or "[h:mm:ss]" for meetings of an hour or more. */
export function formatTimestamp(seconds: number, withHours = false): string {
  const total = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const s = String(total % 60).padStart(2, "0");
  if (withHours) {
    const m = String(Math.floor(total / 60) % 60).padStart(2, "0");
    return `${Math.floor(total / 3600)}:${m}:${s}`;
  }
  return `${String(Math.floor(total / 60)).padStart(2, "0")}:${s}`;
}

/** Whether the transcript's timestamps need hours. */
export function needsHours(transcript: readonly Segment[]): boolean {
  return transcript.some((segment) => segment.end >= 3600 || segment.start >= 3600);
}

/** "[mm:ss] SPEAKER_00: text", on one line. */
export function formatTranscriptLine(segment: Segment, withHours = false): string {
  const text = segment.text.replace(/\s+/g, " ").trim();
  const speaker = segment.speaker.replace(/\s+/g, " ").trim() || "SPEAKER";
  return `[${formatTimestamp(segment.start, withHours)}] ${speaker}: ${text}`;
}

/** The prompts are written in French for French meetings and in English otherwise. */
export function promptLanguage(language: string | null): "en" | "fr" {
  return normalizeLanguage(language) === "fr" ? "fr" : "en";
}

interface Texts {
  system(compact: boolean): string;
  writeIn(name: string | null): string;
  intro(task: PromptTask, compact: boolean): string;
  fields(limits: ReportLimits): string;
  bodyLabel(task: PromptTask): string;
  closing(name: string | null): string;
  part: string;
  title: string;
}

const EN: Texts = {
  system: (compact) =>
    compact
      ? "You write factual meeting reports as JSON."
      : "You are a careful meeting secretary. You write factual reports from meeting transcripts, using only what the transcript says: " +
        "never invent names, dates, numbers or decisions. You answer with one JSON object.",
  writeIn: (name) => (name ? `Write every text in ${name}.` : "Write every text in the language of the transcript."),
  intro: (task, compact) =>
    task.kind === "single"
      ? compact
        ? "Report on this meeting as JSON."
        : "Write the report of the meeting transcribed below, as a JSON object:"
      : task.kind === "chunk"
        ? compact
          ? `Part ${task.index}/${task.count} of a meeting transcript (${task.from}–${task.to}). Report on this part only, as JSON.`
          : `Below is part ${task.index} of ${task.count} of the transcript of one meeting, from ${task.from} to ${task.to}. Write the report of this part only, as a JSON object:`
        : compact
          ? `Reports of the ${task.count} parts of one meeting. Merge them into one report, as JSON.`
          : `Below are the reports of the ${task.count} consecutive parts of one meeting, in order. Merge them into the report of the whole meeting (merge repeated points, keep every action item and decision, keep the minutes in order and shorten them), as a JSON object:`,
  fields: (l) =>
    [
      `- title: a short, specific title for the meeting (at most ${l.title} characters)`,
      `- summary: what was discussed and concluded, in a few sentences (at most ${l.summary} characters)`,
      `- key_takeaways: the main points (at most ${l.keyTakeaways})`,
      `- action_items: tasks someone agreed to do (at most ${l.actionItems}), with owner (as named in the transcript, else null) and due (the deadline as said, else null)`,
      `- decisions: what was decided (at most ${l.decisions})`,
      `- minutes: short notes of the discussion, in order (at most ${l.minutes})`,
      `List items are single sentences of at most ${l.item} characters; leave a list empty when there is nothing for it. Speakers are SPEAKER_00, SPEAKER_01 and so on unless named.`,
    ].join("\n"),
  bodyLabel: (task) => (task.kind === "merge" ? "Reports of the parts:" : "Transcript:"),
  closing: (name) => (name ? `Now write the JSON report, in ${name}.` : "Now write the JSON report."),
  part: "Part",
  title: "Title",
};

const FR: Texts = {
  system: (compact) =>
    compact
      ? "Tu rédiges des comptes rendus de réunion factuels en JSON."
      : "Tu es un secrétaire de réunion rigoureux. Tu rédiges des comptes rendus factuels à partir de transcriptions de réunions, en n'utilisant que ce que dit la transcription : " +
        "n'invente jamais de noms, de dates, de chiffres ni de décisions. Tu réponds par un objet JSON.",
  writeIn: (name) => (name ? `Rédige tous les textes en ${name}.` : "Rédige tous les textes dans la langue de la transcription."),
  intro: (task, compact) =>
    task.kind === "single"
      ? compact
        ? "Compte rendu de cette réunion, en JSON."
        : "Rédige le compte rendu de la réunion transcrite ci-dessous, sous forme d'objet JSON :"
      : task.kind === "chunk"
        ? compact
          ? `Partie ${task.index}/${task.count} d'une transcription de réunion (${task.from}–${task.to}). Compte rendu de cette partie seulement, en JSON.`
          : `Voici la partie ${task.index} sur ${task.count} de la transcription d'une réunion, de ${task.from} à ${task.to}. Rédige le compte rendu de cette partie seulement, sous forme d'objet JSON :`
        : compact
          ? `Comptes rendus des ${task.count} parties d'une réunion. Fusionne-les en un seul, en JSON.`
          : `Voici les comptes rendus des ${task.count} parties successives d'une même réunion, dans l'ordre. Fusionne-les en un compte rendu de toute la réunion (regroupe les points répétés, garde chaque action et chaque décision, garde le déroulé dans l'ordre en le raccourcissant), sous forme d'objet JSON :`,
  fields: (l) =>
    [
      `- title : un titre court et précis pour la réunion (au plus ${l.title} caractères)`,
      `- summary : ce dont on a parlé et ce qui en est ressorti, en quelques phrases (au plus ${l.summary} caractères)`,
      `- key_takeaways : les points principaux (au plus ${l.keyTakeaways})`,
      `- action_items : les tâches que quelqu'un s'est engagé à faire (au plus ${l.actionItems}), avec owner (qui, tel que nommé dans la transcription, sinon null) et due (l'échéance telle que dite, sinon null)`,
      `- decisions : ce qui a été décidé (au plus ${l.decisions})`,
      `- minutes : de courtes notes sur la discussion, dans l'ordre (au plus ${l.minutes})`,
      `Chaque élément de liste est une phrase d'au plus ${l.item} caractères ; laisse une liste vide s'il n'y a rien à y mettre. Les locuteurs sont SPEAKER_00, SPEAKER_01, etc. sauf s'ils sont nommés.`,
    ].join("\n"),
  bodyLabel: (task) => (task.kind === "merge" ? "Comptes rendus des parties :" : "Transcription :"),
  closing: (name) => (name ? `Rédige maintenant le compte rendu JSON, en ${name}.` : "Rédige maintenant le compte rendu JSON."),
  part: "Partie",
  title: "Titre",
};

function texts(language: string | null): Texts {
  return promptLanguage(language) === "fr" ? FR : EN;
}

/**
 * The system and user prompts for one call; `body` is the transcript lines or the parts' reports.
 * The compact form leaves out the field descriptions (the grammar still imposes the fields) for
 * models whose context is too small for the full instructions.
 */
export function buildPrompt(task: PromptTask, body: string, language: string | null, limits: ReportLimits, compact = false): Prompt {
  const t = texts(language);
  const code = normalizeLanguage(language);
  const name = code ? languageName(code, promptLanguage(language)) : null;
  const user = compact
    ? [`${t.intro(task, true)} ${t.writeIn(name)}`, "", body].join("\n")
    : [t.intro(task, false), t.fields(limits), t.writeIn(name), "", t.bodyLabel(task), body, "", t.closing(name)].join("\n");
  return { system: `${t.system(compact)} ${t.writeIn(name)}`, user };
}

/** One part's report as compact text for the merge prompt, under the report's own headings (language.ts) in the prompt's language. */
export function renderPartReport(
  report: StructuredReport,
  part: { index: number; from: string; to: string },
  language: string | null,
): string {
  const t = texts(language);
  const w = wordingFor(promptLanguage(language));
  const lines = [`${t.part} ${part.index} (${part.from}–${part.to})`, `${t.title}: ${report.title}`];
  if (report.summary) lines.push(`${w.summary}: ${report.summary}`);
  const list = (label: string, items: string[]) => {
    if (items.length) lines.push(`${label}:`, ...items.map((item) => `- ${item}`));
  };
  list(w.keyTakeaways, report.key_takeaways);
  list(
    w.actionItems,
    report.action_items.map((a) => {
      const extra = [a.owner ? `${w.owner.toLowerCase()}: ${a.owner}` : null, a.due ? `${w.due.toLowerCase()}: ${a.due}` : null].filter(Boolean);
      return extra.length ? `${a.text} (${extra.join("; ")})` : a.text;
    }),
  );
  list(w.decisions, report.decisions);
  list(w.minutes, report.minutes);
  return lines.join("\n");
}

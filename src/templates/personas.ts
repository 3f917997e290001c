import type { Persona } from "./types.ts";

/** The personas the catalogue ships with; a firm's templates may bring others (named by their id). */
export const KNOWN_PERSONAS: Persona[] = [
  { id: "general", name: "General", description: "Minutes, action plans, follow-up emails and briefs for any meeting." },
  { id: "lawyer", name: "Lawyer", description: "Client memos, engagement letters, case timelines and attendance notes." },
  { id: "sales", name: "Sales", description: "Call recaps, CRM notes and proposal outlines." },
  { id: "hr", name: "Human resources", description: "Interview scorecards and one-on-one notes." },
  { id: "medical", name: "Medical", description: "Consultation notes in SOAP form." },
];

/** A document template: its prompt turns a meeting's report (and transcript) into a document. */
export interface Template {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  persona: string | null;
  /** Instructions for the report model; never shown through the API. */
  prompt: string;
  /** Where it came from, for the operator's log: a file name of the catalogue or of the firm's folder. */
  source: string;
}

export interface Persona {
  id: string;
  name: string;
  description: string | null;
}

import { xmlSafeText } from "../lib/xml-text.ts";
import { primingPrompt, type PrimingLanguage } from "./priming.ts";
import { tokenCount, TOKENIZER } from "./tokens.ts";

/** What a meeting's export is made of, gathered by the meetings side. */
export interface ExportInput {
  meeting: {
    id: string;
    title: string;
    /** RFC 3339. */
    recordedAt: string;
    durationSeconds: number | null;
    language: string | null;
    client: string | null;
    tags: string[];
    metadata: Record<string, unknown> | null;
  };
  participants: { name: string; email: string | null; speakerLabels: string[] }[];
  /** The AI report's Markdown; null for a transcribe_only meeting (or one without a report). */
  reportMarkdown: string | null;
  segments: { start: number; speaker: string; speaker_name: string | null; text: string }[];
}

export interface ExportOptions {
  language: PrimingLanguage;
  maxTokens: number;
}

export interface ExportPart {
  part: number;
  of: number;
  tokens: number;
  content: string;
}

export interface ExportBundle {
  object: "export";
  meeting_id: string;
  tokenizer: string;
  max_tokens: number;
  priming_prompt: string;
  total_tokens: number;
  parts: ExportPart[];
}

type Section = "details" | "participants" | "report" | "transcript";

const WORDS: Record<PrimingLanguage, Record<Section | "export" | "part" | "continued" | "title" | "recorded" | "duration" | "language" | "client" | "tags" | "metadata", string>> = {
  en: {
    export: "Meeting export",
    part: "part",
    continued: "continued",
    details: "Meeting",
    participants: "Participants",
    report: "AI report",
    transcript: "Transcript",
    title: "Title",
    recorded: "Recorded",
    duration: "Duration",
    language: "Language",
    client: "Client",
    tags: "Tags",
    metadata: "Metadata",
  },
  fr: {
    export: "Export de réunion",
    part: "partie",
    continued: "suite",
    details: "Réunion",
    participants: "Participants",
    report: "Compte rendu IA",
    transcript: "Transcription",
    title: "Titre",
    recorded: "Date",
    duration: "Durée",
    language: "Langue",
    client: "Client",
    tags: "Étiquettes",
    metadata: "Métadonnées",
  },
};

/** One line of an export, in its section, with its own token count (a final newline included). */
export interface ExportLine {
  section: Section;
  text: string;
  tokens: number;
}
type Line = ExportLine;

/** How lines are packed into parts of at most `budget` tokens (packLines; another only in tests). */
export type LinePacker = (lines: ExportLine[], budget: number) => ExportLine[][];

/** 3723.4 → "01:02:03". */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, "0")).join(":");
}

function linesOf(input: ExportInput, words: (typeof WORDS)[PrimingLanguage]): Omit<Line, "tokens">[] {
  const m = input.meeting;
  const details = [
    `${words.title}: ${m.title}`,
    `${words.recorded}: ${m.recordedAt}`,
    ...(m.durationSeconds !== null ? [`${words.duration}: ${clock(m.durationSeconds)}`] : []),
    ...(m.language ? [`${words.language}: ${m.language}`] : []),
    ...(m.client ? [`${words.client}: ${m.client}`] : []),
    ...(m.tags.length ? [`${words.tags}: ${m.tags.join(", ")}`] : []),
    ...(m.metadata ? [`${words.metadata}: ${JSON.stringify(m.metadata)}`] : []),
  ];
  const participants = input.participants.map(
    (p) => `- ${p.name}${p.email ? ` <${p.email}>` : ""}${p.speakerLabels.length ? ` (${p.speakerLabels.join(", ")})` : ""}`,
  );
  const report = (input.reportMarkdown ?? "").split("\n").filter((l) => l.trim() !== "");
  const transcript = input.segments.map((s) => `[${clock(s.start)}] ${s.speaker_name ?? s.speaker}: ${s.text.trim()}`);
  return [
    ...details.map((text) => ({ section: "details" as const, text })),
    ...participants.map((text) => ({ section: "participants" as const, text })),
    ...report.map((text) => ({ section: "report" as const, text })),
    ...transcript.map((text) => ({ section: "transcript" as const, text })),
  ];
}

/**
 * The export bundle (SPEC 2 and 4): the meeting's details, participants, AI report and diarized
 * transcript as Markdown parts of at most `maxTokens` tokens each, every part opening with which
 * meeting and which part it is, so each stands alone. A transcript line is never split across
 * parts; only a single line longer than a whole part (which a 30-second speech segment cannot be
 * at 2000 tokens) is cut at word boundaries.
 *
 * Two checks, each on its own: packLines keeps the lines' token counts within the budget, and the
 * parts it made are counted again as written (header, headings and all) and packed tighter when
 * one is over. `pack` is a parameter so that the second check can be tested with a packer that
 * overshoots: neither may rely on the other to hide its fault.
 */
export function buildExportBundle(input: ExportInput, options: ExportOptions, pack: LinePacker = packLines): ExportBundle {
  const words = WORDS[options.language];
  const lines: Line[] = linesOf(input, words).map((l) => ({ ...l, tokens: tokenCount(`${l.text}\n`) }));
  const header = (part: number | string, of: number | string) =>
    `# ${words.export}: "${input.meeting.title}" (${input.meeting.id}), ${words.part} ${part}/${of}\n\n`;
  const heading = (section: Section, continued: boolean) => `\n## ${words[section]}${continued ? ` (${words.continued})` : ""}\n`;
  // The largest a part's header and section headings can be, whatever the part's number.
  const headingTokens = Math.max(...(["details", "participants", "report", "transcript"] as const).map((s) => tokenCount(heading(s, true))));
  const reserve = tokenCount(header(999_999, 999_999)) + 4 * headingTokens;

  for (let shrink = 0; ; shrink++) {
    const budget = Math.floor((options.maxTokens - reserve) * (1 - shrink * 0.05));
    if (budget < 64) throw new Error(`an export part of ${options.maxTokens} tokens cannot hold this meeting's header`);
    const packed = pack(lines, budget);
    const parts = packed.map((partLines, index) => {
      let content = header(index + 1, packed.length);
      let section: Section | undefined;
      for (const line of partLines) {
        if (line.section !== section) {
          const continued = section === undefined && index > 0 && packed[index - 1]!.at(-1)!.section === line.section;
          content += heading(line.section, continued);
          section = line.section;
        }
        content += `${line.text}\n`;
      }
      return { part: index + 1, of: packed.length, tokens: tokenCount(content), content };
    });
    // Token counts of joined text can differ from the sum of the lines' by a merge at a seam:
    // check the real count, and pack tighter in the rare case a part came out over.
    if (parts.some((p) => p.tokens > options.maxTokens)) continue;
    const priming = primingPrompt(options.language, parts.length, input.meeting.title);
    return {
      object: "export",
      meeting_id: input.meeting.id,
      tokenizer: TOKENIZER,
      max_tokens: options.maxTokens,
      priming_prompt: priming,
      total_tokens: tokenCount(priming) + parts.reduce((sum, p) => sum + p.tokens, 0),
      parts,
    };
  }
}

/**
 * Lines into parts whose lines' tokens sum to at most `budget`, in order, each part as full as the
 * next line allows; a line alone over budget is cut at words.
 */
export function packLines(lines: Line[], budget: number): Line[][] {
  const parts: Line[][] = [];
  let current: Line[] = [];
  let used = 0;
  for (const line of lines.flatMap((l) => (l.tokens > budget ? cutLine(l, budget) : [l]))) {
    if (used + line.tokens > budget && current.length) {
      parts.push(current);
      current = [];
      used = 0;
    }
    current.push(line);
    used += line.tokens;
  }
  if (current.length || !parts.length) parts.push(current);
  return parts;
}

function cutLine(line: Line, budget: number): Line[] {
  const pieces: Line[] = [];
  let text = "";
  for (const word of line.text.split(" ")) {
    const next = text ? `${text} ${word}` : word;
    if (text && tokenCount(`${next}\n`) > budget) {
      pieces.push({ ...line, text, tokens: tokenCount(`${text}\n`) });
      text = word;
    } else {
      text = next;
    }
  }
  if (text) pieces.push({ ...line, text, tokens: tokenCount(`${text}\n`) });
  return pieces;
}

/** format=md: the priming prompt, then every part after a `--- Part i/n ---` line. */
export function exportMarkdown(bundle: ExportBundle): string {
  return xmlSafeText([bundle.priming_prompt, "", ...bundle.parts.flatMap((p) => [`--- Part ${p.part}/${p.of} ---`, p.content])].join("\n"));
}

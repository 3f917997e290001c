import { z } from "zod";
import type { Actor } from "../auth/actor.ts";
import type { Scope } from "../auth/scopes.ts";
import type { DocumentsApp } from "../documents/app.ts";
import { documentRequestBody, documentWithMarkdownSchema } from "../documents/schema.ts";
import type { ExportsApp } from "../exports/app.ts";
import { exportQuery } from "../exports/schema.ts";
import { ApiError } from "../errors/api-error.ts";
import { access, type Access } from "../http/route.ts";
import { parseOrThrow } from "../http/validation.ts";
import type { JobsApp } from "../jobs/app.ts";
import { jobSchemas } from "../jobs/schema.ts";
import type { MeetingsApp } from "../meetings/app.ts";
import { listMeetingsQuery, meetingPageSchema, meetingSchema } from "../meetings/schema.ts";
import type { ReportsApp } from "../reports/app.ts";
import { renderReport } from "../reports/render.ts";
import { reportSchema } from "../reports/schema.ts";
import type { TemplatesApp } from "../templates/app.ts";
import { renderTemplate, templateSchema } from "../templates/routes.ts";
import type { TranscriptsApp } from "../transcripts/app.ts";

/** The application modules the MCP server calls: the same instances the API's routes call (service.ts). */
export interface McpApps {
  meetings: MeetingsApp;
  transcripts: TranscriptsApp;
  reports: ReportsApp;
  exports: ExportsApp;
  documents: DocumentsApp;
  templates: TemplatesApp;
  jobs: JobsApp;
}

/** One tool: what a model reads (title, description, schemas), the REST route's access, and the use case it calls. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** Exactly the access of the REST route whose use case the tool calls. */
  access: Access;
  input: z.ZodObject;
  output: z.ZodObject;
  /** Reads change nothing: the annotation lets a client run them without asking the person each time. */
  readOnly: boolean;
  /** The structured result: a JSON object the output schema describes. */
  run(actor: Actor, args: Record<string, unknown>): Promise<object>;
}

const meetingId = z.uuid("A meeting id is a UUID.").describe("The meeting's id (a UUID), as search_meetings returns it.");

/** Segments a get_transcript call answers at most: about 30 minutes of speech, which fits a model's context. */
export const MAX_TRANSCRIPT_SEGMENTS = 500;
/** The longest a generate_document call waits for its document, in seconds (an HTTP request stays open that long). */
export const MAX_DOCUMENT_WAIT_SECONDS = 120;
const DOCUMENT_POLL_MS = 250;

const transcriptPageSchema = z.object({
  meeting_id: z.string(),
  language: z.string().nullable(),
  duration_seconds: z.number().nullable(),
  speakers: z.array(z.object({ label: z.string(), name: z.string().nullable() })).describe("Each diarization label with the participant's name it is attributed to."),
  segments: z.array(
    z.object({
      index: z.number().int(),
      start: z.number(),
      end: z.number(),
      speaker: z.string(),
      speaker_name: z.string().nullable(),
      text: z.string(),
    }),
  ),
  total_segments: z.number().int().describe("Segments in the asked time range (the whole transcript without one)."),
  next_offset: z.number().int().nullable().describe("The offset of the next page; null on the last page."),
});

const exportPartSchema = z.object({
  meeting_id: z.string(),
  part: z.number().int(),
  of: z.number().int(),
  tokens: z.number().int(),
  tokenizer: z.string(),
  priming_prompt: z.string(),
  content: z.string(),
});

/**
 * The job a generate_document call queued, and the document once it is ready (when asked to wait).
 * Built with the tools: the job schema names the registered job kinds, known once the scheduler is.
 */
function generationSchema() {
  return z.object({
    job: jobSchemas().jobSchema,
    document: documentWithMarkdownSchema.nullable().describe("The finished document; null when not waited for, or not ready within wait_seconds (then call get_document with job.document_id once the job completes)."),
  });
}
type Job = z.output<ReturnType<typeof jobSchemas>["jobSchema"]>;

export function mcpTools(apps: McpApps, sleep: (ms: number) => Promise<void> = Bun.sleep): McpTool[] {
  return [
    {
      name: "search_meetings",
      title: "Search meetings",
      description:
        "Lists the person's recorded meetings, most recent first, optionally filtered: `q` searches titles, transcripts and reports (full text); `client`, `tag`, `status` and date ranges narrow the list. Answers one page (`limit`, at most 100); pass `next_cursor` back as `cursor` for the next. Use it to find a meeting's id before calling get_meeting, get_transcript or get_report.",
      access: access.allOf("read:meetings"),
      input: z.object({
        q: z.string().max(500).optional().describe("Words to search for in titles, transcripts and reports."),
        client: z.string().max(200).optional().describe("A client's name or id (cli_…): only that client's meetings."),
        status: meetingSchema.shape.status.optional().describe("completed: transcript and report ready."),
        tag: z.array(z.string().max(50)).max(20).optional().describe("Only meetings with all these tags."),
        recorded_after: z.string().optional().describe("RFC 3339 date-time, e.g. 2026-03-01T00:00:00Z."),
        recorded_before: z.string().optional().describe("RFC 3339 date-time."),
        created_after: z.string().optional().describe("RFC 3339 date-time."),
        created_before: z.string().optional().describe("RFC 3339 date-time."),
        on_hold: z.boolean().optional().describe("true: only meetings under a legal hold; false: only the others."),
        limit: z.number().int().min(1).max(100).optional().describe("Meetings per page, 20 by default."),
        cursor: z.string().max(500).optional().describe("next_cursor of the previous page."),
      }),
      output: meetingPageSchema,
      readOnly: true,
      async run(actor, args) {
        // The REST route's own query schema decides what is valid, so both answer the same refusals.
        const { on_hold, ...rest } = args;
        const query = parseOrThrow(listMeetingsQuery, { ...rest, ...(on_hold === undefined ? {} : { on_hold: String(on_hold) }) });
        return apps.meetings.list(actor, query);
      },
    },
    {
      name: "get_meeting",
      title: "Get a meeting",
      description:
        "One meeting: title, date, duration, status, participants, tags, client, its AI report (summary, decisions, action items) when ready, and the documents generated from it. Call get_transcript for what was said word for word.",
      access: access.allOf("read:meetings"),
      input: z.object({ meeting_id: meetingId }),
      output: meetingSchema,
      readOnly: true,
      run: async (actor, args) => apps.meetings.get(actor, args.meeting_id as string),
    },
    {
      name: "get_transcript",
      title: "Get a transcript",
      description: `What was said in a meeting, segment by segment with times (seconds from the start) and speaker names. Paged: \`offset\` and \`limit\` (at most ${MAX_TRANSCRIPT_SEGMENTS} segments) walk the transcript; \`from_seconds\`/\`to_seconds\` keep only a time range (e.g. the 10 minutes around a moment the report mentions). For a whole long meeting in a few large pieces, use get_export_part.`,
      access: access.allOf("read:transcripts"),
      input: z.object({
        meeting_id: meetingId,
        from_seconds: z.number().min(0).optional().describe("Only segments that end after this time."),
        to_seconds: z.number().min(0).optional().describe("Only segments that start before this time."),
        offset: z.number().int().min(0).optional().describe("The first segment of the page (0 by default): next_offset of the previous page."),
        limit: z.number().int().min(1).max(MAX_TRANSCRIPT_SEGMENTS).optional().describe("Segments per page, 200 by default."),
      }),
      output: transcriptPageSchema,
      readOnly: true,
      async run(actor, args) {
        const { transcript } = await apps.transcripts.get(actor, args.meeting_id as string);
        const from = (args.from_seconds as number | undefined) ?? 0;
        const to = (args.to_seconds as number | undefined) ?? Number.POSITIVE_INFINITY;
        const offset = (args.offset as number | undefined) ?? 0;
        const limit = (args.limit as number | undefined) ?? 200;
        const inRange = transcript.segments.map((segment, index) => ({ index, ...segment })).filter((s) => s.end > from && s.start < to);
        const page = inRange.slice(offset, offset + limit);
        const names = new Map<string, string | null>();
        for (const segment of transcript.segments) if (!names.has(segment.speaker) || segment.speaker_name) names.set(segment.speaker, segment.speaker_name);
        for (const label of transcript.speakers) if (!names.has(label)) names.set(label, null);
        return {
          meeting_id: transcript.meeting_id,
          language: transcript.language,
          duration_seconds: transcript.duration_seconds,
          speakers: [...names].map(([label, name]) => ({ label, name })),
          segments: page.map((s) => ({ index: s.index, start: s.start, end: s.end, speaker: s.speaker, speaker_name: s.speaker_name, text: s.text })),
          total_segments: inRange.length,
          next_offset: offset + page.length < inRange.length ? offset + page.length : null,
        };
      },
    },
    {
      name: "get_report",
      title: "Get a meeting's AI report",
      description:
        "The AI report of a processed meeting: its Markdown (summary, key points, decisions, action items with owners and dates) and the same as structured fields. The quickest way to answer 'what was decided' or 'what are the next steps'.",
      access: access.allOf("read:meetings"),
      input: z.object({ meeting_id: meetingId }),
      output: reportSchema,
      readOnly: true,
      run: async (actor, args) => renderReport(await apps.reports.get(actor, args.meeting_id as string)),
    },
    {
      name: "get_export_part",
      title: "Get a part of a meeting's export",
      description:
        "The whole meeting prepared for a language model (details, participants, AI report and transcript), cut into parts of at most `max_tokens` tokens so a long meeting fits your context: ask part 1, then 2, up to `of`. Use it to read or quote an entire meeting; get_transcript is better for a time range.",
      access: access.allOf("read:meetings", "read:transcripts"),
      input: z.object({
        meeting_id: meetingId,
        part: z.number().int().min(1).optional().describe("Which part, from 1 (the default)."),
        max_tokens: z.number().int().min(2000).max(200_000).optional().describe("Tokens per part, 24000 by default."),
        lang: z.enum(["en", "fr"]).optional().describe("Language of the headings and the priming prompt, fr by default."),
      }),
      output: exportPartSchema,
      readOnly: true,
      async run(actor, args) {
        const options = parseOrThrow(exportQuery, { lang: args.lang, max_tokens: args.max_tokens });
        const bundle = await apps.exports.bundle(actor, args.meeting_id as string, { language: options.lang, maxTokens: options.max_tokens });
        const wanted = (args.part as number | undefined) ?? 1;
        const part = bundle.parts[wanted - 1];
        if (!part) throw ApiError.validation([{ field: "part", code: "too_big", message: `The export has ${bundle.parts.length} part(s) at this max_tokens.` }]);
        return { meeting_id: bundle.meeting_id, part: part.part, of: part.of, tokens: part.tokens, tokenizer: bundle.tokenizer, priming_prompt: bundle.priming_prompt, content: part.content };
      },
    },
    {
      name: "list_templates",
      title: "List document templates",
      description:
        "The document templates of this service (client memo, minutes, follow-up email, action plan…), each with its id, name, description and persona (lawyer, sales, hr…). Pass a template's id to generate_document.",
      access: access.anyOf("read:meetings", "write:documents"),
      input: z.object({ persona: z.string().max(100).optional().describe("Only this persona's templates, e.g. lawyer.") }),
      output: z.object({ data: z.array(templateSchema) }),
      readOnly: true,
      run: async (_actor, args) => ({ data: (await apps.templates.list(args.persona as string | undefined)).map(renderTemplate) }),
    },
    {
      name: "generate_document",
      title: "Generate a document from a meeting",
      description: `Writes a document from a processed meeting's report (and transcript when include_transcript is true) with a template (template_id, from list_templates) or your own prompt: a client memo, minutes, a follow-up email… It is billed like the API's POST /v1/meetings/{id}/documents and takes from seconds to a few minutes. Answers the queued job; with \`wait: true\` it also waits (up to wait_seconds, at most ${MAX_DOCUMENT_WAIT_SECONDS}) and answers the finished document.`,
      access: access.allOf("write:documents"),
      input: z.object({
        meeting_id: meetingId,
        template_id: z.string().max(100).optional().describe("A template's id (list_templates). Give template_id or prompt."),
        prompt: z.string().max(20_000).optional().describe("What to write, in your own words, when no template fits."),
        title: z.string().max(300).optional().describe("The document's title."),
        instructions: z.string().max(4000).optional().describe("Extra guidance, e.g. 'address it to the client, formal tone'."),
        include_transcript: z.boolean().optional().describe("true: the model also reads the transcript (slower, more detail)."),
        wait: z.boolean().optional().describe("true: wait for the document and answer it."),
        wait_seconds: z.number().int().min(1).max(MAX_DOCUMENT_WAIT_SECONDS).optional().describe("How long to wait, 60 by default."),
      }),
      output: generationSchema(),
      readOnly: false,
      async run(actor, args) {
        const { meeting_id, wait, wait_seconds, ...request } = args;
        // The REST route's body schema, so a tool call is refused exactly as the POST would be.
        const body = parseOrThrow(documentRequestBody, request);
        const outcome = await apps.documents.requestOnce(actor, meeting_id as string, body, null);
        let job = outcome.body as Job;
        if (!wait) return { job, document: null };
        const deadline = performance.now() + ((wait_seconds as number | undefined) ?? 60) * 1000;
        while ((job.status === "queued" || job.status === "processing") && performance.now() < deadline) {
          await sleep(DOCUMENT_POLL_MS);
          job = await apps.jobs.get(actor, job.id);
        }
        const document = job.status === "completed" && job.document_id ? await apps.documents.get(actor, job.document_id) : null;
        return { job, document };
      },
    },
    {
      name: "get_document",
      title: "Get a document",
      description: "A generated document (from generate_document, or listed in get_meeting's documents) with its Markdown text.",
      access: access.allOf("read:documents"),
      input: z.object({ document_id: z.string().max(100).describe("The document's id (doc_…).") }),
      output: documentWithMarkdownSchema,
      readOnly: true,
      run: async (actor, args) => apps.documents.get(actor, args.document_id as string),
    },
  ];
}

/**
 * The scopes a challenge asks for (WWW-Authenticate scope="…"): all of an allOf rule; for an anyOf
 * rule the first, as a client re-authorizing asks for every scope named and one of them suffices.
 */
export function scopesOf(rule: Access): Scope[] {
  if (rule.kind === "allOf") return rule.scopes;
  return rule.kind === "anyOf" ? rule.scopes.slice(0, 1) : [];
}

import { documentSchema } from "../documents/schema.ts";
import { metadataInput } from "../http/metadata.ts";
import { z } from "zod";
import { assertDepth } from "../http/body.ts";
import { pageSchema, paginationQuery } from "../http/pagination.ts";
import { queryBoolean } from "../http/route.ts";
import { reportSchema } from "../reports/schema.ts";
import { isLanguageCode } from "../lib/languages.ts";
import { MEETING_STATUSES } from "./table.ts";
import { meetingVocabulary } from "../vocabulary/schema.ts";
import { redactionSchema, redactPiiInput } from "./redaction.ts";


export const speakerLabel = z.string().regex(/^SPEAKER_\d{2,3}$/, "A speaker label looks like SPEAKER_00.");
const email = z.email().max(320);
const tag = z.string().trim().min(1).max(100);
/** Titles count characters as people do (code points), not UTF-16 units: 300 emoji are 300 characters. */
const title = z
  .string()
  .trim()
  .min(1)
  .refine((v) => [...v].length <= 300, { message: "At most 300 characters.", params: { code: "too_long" } });

export const participantInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: email.nullish(),
  speaker_labels: z.array(speakerLabel).max(20).default([]),
});

export const clientInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  email: email.nullish(),
  phone: z.string().trim().min(1).max(50).nullish(),
});

const metadata = metadataInput;

const language = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === "auto" || isLanguageCode(v), { message: "Use an ISO 639-1 code such as en or fr, or auto." });

/** Fields shared by both ways to create a meeting. */
const meetingFields = {
  title: title.optional(),
  recorded_at: z.iso.datetime({ offset: true }).optional(),
  language: language.default("auto"),
  recording_type: z.enum(["meeting", "solo"]).default("meeting"),
  participants: z.array(participantInput).max(50).default([]),
  tags: z.array(tag).max(20).default([]),
  client_id: z.string().regex(/^cli_\d{1,15}$/, "A client id looks like cli_12.").optional(),
  client: clientInput.optional(),
  transcribe_only: z.boolean().default(false),
  document_templates: z.array(z.string().regex(/^tpl_\w{1,64}$/, "A template id looks like tpl_...")).max(5).optional(),
  persona: z.string().trim().min(1).max(100).optional(),
  metadata: metadata.optional(),
  /** Extension: speaker-count hints for diarization (an exact count is min = max). */
  min_speakers: z.number().int().min(1).max(20).optional(),
  max_speakers: z.number().int().min(1).max(20).optional(),
  vocabulary: meetingVocabulary.optional(),
  /** Personal-data redaction (issue 23): left out, the account's default (GET /v1/redaction). */
  redact_pii: redactPiiInput.optional(),
};

function crossFieldRules(value: { client_id?: string; client?: unknown; min_speakers?: number; max_speakers?: number }, ctx: z.RefinementCtx) {
  if (value.client_id !== undefined && value.client !== undefined) {
    ctx.addIssue({ code: "custom", path: ["client"], message: "Send client_id or client, not both.", params: { code: "conflict" } });
  }
  if (value.min_speakers !== undefined && value.max_speakers !== undefined && value.min_speakers > value.max_speakers) {
    ctx.addIssue({ code: "custom", path: ["min_speakers"], message: "min_speakers is above max_speakers." });
  }
}

export const createMeetingJson = z.strictObject({ audio_url: z.url({ protocol: /^https?$/ }).max(2048), ...meetingFields }).superRefine(crossFieldRules);

/** A multipart upload, after its text fields are turned into values (see multipartToObject). */
export const createMeetingUpload = z.strictObject(meetingFields).superRefine(crossFieldRules);

export type CreateMeetingFields = z.output<typeof createMeetingUpload>;
export type CreateMeetingJson = z.output<typeof createMeetingJson>;

/** Fields that arrive as JSON strings in multipart, and those that also take a comma list. */
const JSON_FIELDS = new Set(["participants", "metadata", "client", "tags", "document_templates", "vocabulary", "redact_pii"]);
const COMMA_LIST_FIELDS = new Set(["tags", "document_templates", "vocabulary"]);
/** A list whose repeated fields are one item each, never joined by commas: a term may hold a comma ("Smith, Jones LLP"). */
const REPEATED_LIST_FIELDS = new Set(["vocabulary"]);
const BOOLEAN_FIELDS = new Set(["transcribe_only"]);
/** Fields that are true, false, or a JSON object. */
const BOOLEAN_OR_JSON_FIELDS = new Set(["redact_pii"]);
const INTEGER_FIELDS = new Set(["min_speakers", "max_speakers"]);

/**
 * Multipart text fields to the JSON shape the schema validates. What cannot be converted is left
 * as the raw string, so the schema reports it against its field like any other wrong value.
 */
export function multipartToObject(fields: Map<string, string[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, values] of fields) {
    if (values.length > 1 && REPEATED_LIST_FIELDS.has(name)) {
      out[name] = values;
      continue;
    }
    if (values.length > 1 && !COMMA_LIST_FIELDS.has(name)) {
      out[name] = values; // a repeated single-value field is reported as invalid_type
      continue;
    }
    const raw = values.length > 1 ? values.join(",") : values[0]!;
    out[name] = convertField(name, raw);
  }
  return out;
}

/** A form's redact_pii (the web app's select, or a draft's fields) as POST /v1/meetings reads it in multipart; undefined when empty. */
export function redactPiiFromField(raw: string | null | undefined): unknown {
  return raw == null || raw.trim() === "" ? undefined : convertField("redact_pii", raw);
}

function convertField(name: string, raw: string): unknown {
  const text = raw.trim();
  if (BOOLEAN_FIELDS.has(name)) return text === "true" ? true : text === "false" ? false : raw;
  if (BOOLEAN_OR_JSON_FIELDS.has(name) && (text === "true" || text === "false")) return text === "true";
  if (INTEGER_FIELDS.has(name)) return /^\d{1,4}$/.test(text) ? Number(text) : raw;
  if (JSON_FIELDS.has(name)) {
    if (text.startsWith("[") || text.startsWith("{")) {
      assertDepth(text, name);
      try {
        return JSON.parse(text);
      } catch {
        return raw;
      }
    }
    if (name === "vocabulary") return vocabularyList(text);
    if (COMMA_LIST_FIELDS.has(name)) return text === "" ? [] : text.split(",").map((s) => s.trim()).filter(Boolean);
    if (name === "client") return { name: text }; // multipart may name the client alone
  }
  return raw;
}

/**
 * A meeting's vocabulary from one plain text field: one term a line when it has several lines
 * (the web app's text area), else a comma list like tags. A term holding a comma comes as a JSON
 * array or in repeated fields.
 */
export function vocabularyList(text: string): string[] {
  const items = /[\r\n]/.test(text) ? text.split(/\r\n|\r|\n/) : text.split(",");
  return items.map((s) => s.trim()).filter(Boolean);
}

export const meetingParams = z.object({ meeting_id: z.uuid("A meeting id is a UUID.") });

const dateTime = z.iso.datetime({ offset: true });
const repeatable = z.union([tag, z.array(tag).max(20)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const listMeetingsQuery = z.object({
  ...paginationQuery(20),
  q: z.string().trim().min(1).max(500).optional(),
  client: z.string().trim().min(1).max(200).optional(),
  created_after: dateTime.optional(),
  created_before: dateTime.optional(),
  recorded_after: dateTime.optional(),
  recorded_before: dateTime.optional(),
  status: z.enum(MEETING_STATUSES).optional(),
  tag: repeatable.optional(),
  /** Extension (issue 23): true lists only meetings under a legal hold (their own or their client's), false only the others. */
  on_hold: queryBoolean.optional(),
});

export const participantPatch = z.strictObject({
  id: z.string().regex(/^par_\d{1,15}$/, "A participant id looks like par_3."),
  name: z.string().trim().min(1).max(200).optional(),
  email: email.nullish(),
  speaker_labels: z.array(speakerLabel).max(20).optional(),
});

export const patchMeetingBody = z.strictObject({
  title: title.optional(),
  recorded_at: dateTime.optional(),
  tags: z.array(tag).max(20).optional(),
  client_id: z.string().regex(/^cli_\d{1,15}$/).nullable().optional(),
  client: clientInput.nullable().optional(),
  participants: z
    .strictObject({
      add: z.array(participantInput).max(50).default([]),
      update: z.array(participantPatch).max(50).default([]),
      remove: z.array(z.string().regex(/^par_\d{1,15}$/)).max(50).default([]),
    })
    .optional(),
  /** Extension (issue 23): puts the meeting under a legal hold (true) or lifts its own hold (false); a client folder's hold is lifted on the client. */
  legal_hold: z.boolean().optional(),
}).superRefine((value, ctx) => {
  if (value.client_id !== undefined && value.client !== undefined) {
    ctx.addIssue({ code: "custom", path: ["client"], message: "Send client_id or client, not both.", params: { code: "conflict" } });
  }
});

export type PatchMeeting = z.output<typeof patchMeetingBody>;


// Response shapes, for the OpenAPI document.
export const participantSchema = z.object({
  id: z.string().nullable(),
  object: z.literal("participant"),
  name: z.string(),
  email: z.string().nullable(),
  speaker_labels: z.array(z.string()),
});

export const meetingSchema = z.object({
  id: z.string(),
  object: z.literal("meeting"),
  title: z.string(),
  status: z.enum(MEETING_STATUSES),
  transcribe_only: z.boolean(),
  recorded_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  duration_seconds: z.number().int().nullable(),
  language: z.string().nullable(),
  source: z.string().nullable(),
  recording_type: z.string().nullable(),
  tags: z.array(z.string()),
  client: z.object({}).passthrough().nullable(),
  has_transcript: z.boolean(),
  has_summary: z.boolean(),
  web_url: z.string(),
  summary: reportSchema.nullable(),
  participants: z.array(participantSchema),
  documents: z.array(documentSchema),
  job: z.object({}).passthrough().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  legal_hold: z.boolean().meta({ description: "Extension (issue 23): the meeting's own legal hold, as PATCH legal_hold sets it" }),
  legal_hold_inherited: z.boolean().meta({ description: "Extension (issue 23): true when the meeting's client folder is under a legal hold (lifted on the client)" }),
  retention: z
    .object({
      delete_at: z.string().nullable(),
      recording_delete_at: z.string().nullable(),
    })
    .meta({ description: "Extension (issue 23): when the account's retention policy deletes the meeting, and its recording alone; null when no policy says so, under a legal hold, or (recording) when there is none" }),
  recording_deleted_at: z.string().nullable().meta({ description: "Extension (issue 23): when retention deleted the recording (transcript and report kept); null while it is kept" }),
  redaction: redactionSchema,
});

export const meetingPageSchema = pageSchema(meetingSchema);

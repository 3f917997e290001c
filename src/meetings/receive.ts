import { readFileSync, rmSync } from "node:fs";
import { ApiError } from "../errors/api-error.ts";
import { bodyIncomplete, CLOSE_AFTER } from "../errors/body-errors.ts";
import { bodyPaceOf } from "../http/request-context.ts";
import { readJsonBody } from "../http/body.ts";
import { parseOrThrow } from "../http/validation.ts";
import { hashRequest } from "../idempotency/service.ts";
import { checkEgress, EgressRefused, type EgressPolicy } from "../net/egress.ts";
import { looksLikeRecording, MEDIA_HEAD_BYTES, NOT_A_RECORDING_MESSAGE } from "../uploads/media-sniff.ts";
import { receiveMultipart, UploadAborted } from "../uploads/multipart.ts";
import { assertLabelsUnique, type Recording } from "./create.ts";
import { createMeetingJson, createMeetingUpload, multipartToObject, type CreateMeetingFields } from "./schema.ts";
import { MAX_TEXT_TRANSCRIPT_BYTES } from "./text-transcript.ts";
import { parseTranscriptFile, type ImportedTranscript } from "./transcript-import.ts";

export { MAX_UPLOAD_FILE_BYTES as MAX_UPLOAD_BYTES } from "../uploads/limits.ts";

export interface ReceivedMeeting {
  fields: CreateMeetingFields;
  recording: Recording | TranscriptFile;
}

/** A transcript sent instead of a recording (the multipart part `transcript`: source text), read whole. */
export interface TranscriptFile {
  kind: "transcript";
  transcript: ImportedTranscript;
  fileName: string;
}

/** The multipart part that carries a transcript written elsewhere (Teams, Zoom, Meet, subtitles, text). */
export const TRANSCRIPT_PART = "transcript";

export interface ReceiveDeps {
  tmpDir: string;
  egress: EgressPolicy;
  maxUploadBytes: number;
  /** The document templates and personas a meeting may ask for. */
  templates: KnownTemplates;
  /** A browser form sends its empty inputs too: left out, they mean "not given" (the web app). */
  dropEmptyFields?: boolean;
  /**
   * Checks that client_id names one of the requesting account's clients (404 when not): the
   * multipart reader awaits the fields' validation before it reads the file.
   */
  requireOwnClient: (clientId: string) => Promise<void>;
  /**
   * The account's admission (free processing slot, balance or quota, uploads in flight), run once
   * what can be validated is valid and before a file is stored or a URL is queued: a malformed
   * request is a 400 whatever the account's slots and balance. May reject (429, 402).
   */
  admit: () => Promise<void>;
}

export interface KnownTemplates {
  has(templateId: string): boolean;
  hasPersona(personaId: string): boolean;
}

/** Checks beyond the schema: the catalogue's templates and personas, the account's client, labels used once. */
async function assertValidFields(fields: CreateMeetingFields, deps: ReceiveDeps): Promise<void> {
  assertKnownTemplates(fields, deps.templates);
  if (fields.client_id !== undefined) await deps.requireOwnClient(fields.client_id);
  assertLabelsUnique(fields.participants, "participants");
}

/** document_templates and persona must name templates and a persona of the catalogue. */
function assertKnownTemplates(fields: CreateMeetingFields, known: KnownTemplates): void {
  const errors = (fields.document_templates ?? []).flatMap((id, i) =>
    known.has(id) ? [] : [{ field: `document_templates[${i}]`, code: "unknown_template", message: `There is no template ${id}; GET /v1/templates lists them.` }],
  );
  if (fields.persona !== undefined && !known.hasPersona(fields.persona)) {
    errors.push({ field: "persona", code: "unknown_persona", message: `There is no persona ${fields.persona}; GET /v1/personas lists them.` });
  }
  if (errors.length) throw ApiError.validation(errors);
}

/**
 * Reads a POST /v1/meetings request: multipart with `file` (or, an extension, `transcript`), or
 * JSON with `audio_url`, exactly one of them. An upload streams to a temp file; the hash covers
 * the fields and the file's digest, so a retried upload with another multipart boundary still
 * matches its first try. A transcript is read whole once it has arrived (at most 1 MiB).
 */
export async function receiveMeeting(request: Request, deps: ReceiveDeps): Promise<{ parsed: ReceivedMeeting; hash: string }> {
  const contentType = (request.headers.get("content-type") ?? "").toLowerCase();
  if (contentType.startsWith("multipart/form-data")) return receiveUpload(request, deps);
  if (contentType.startsWith("application/json") || contentType === "") return receiveUrl(request, deps);
  throw new ApiError(
    "unsupported_media_type",
    `Send multipart/form-data with a file (or a transcript), or application/json with audio_url; the request was ${contentType}.`,
  );
}

/**
 * Validation before admission, as far as the multipart order allows: the text fields sent before
 * the file are validated when the file part begins, then the account is admitted, then the file
 * streams to disk (its first bytes checked: a recording, or 415). Fields sent after the file can
 * only be validated once it has arrived (docs/api-notes.md, "order of checks").
 */
async function receiveUpload(request: Request, deps: ReceiveDeps): Promise<{ parsed: ReceivedMeeting; hash: string }> {
  // `part`: the file part's name once it is known (undefined while only fields have arrived).
  const validate = async (fields: Map<string, string[]>, part: string | undefined) => {
    const raw = multipartToObject(deps.dropEmptyFields ? withoutEmpty(fields) : fields);
    if ("audio_url" in raw) {
      const sent = part === TRANSCRIPT_PART ? "a transcript" : "a file";
      throw ApiError.validation([{ field: "audio_url", code: "conflict", message: `Send ${sent} or an audio_url, not both.` }]);
    }
    // source: text says what a transcript part already says; it is allowed with one, and nothing else.
    const { source, ...rest } = raw;
    if (source !== undefined && (source !== "text" || (part !== undefined && part !== TRANSCRIPT_PART))) {
      const message = source === "text" ? "source text goes with a transcript part, not a file." : "source is text (with a transcript part), or left out.";
      throw ApiError.validation([{ field: "source", code: "invalid_value", message }]);
    }
    const parsed = parseOrThrow(createMeetingUpload, rest);
    await assertValidFields(parsed, deps);
    return { raw, parsed };
  };
  const form = await receiveMultipart(request, {
    tmpDir: deps.tmpDir,
    maxFileBytes: deps.maxUploadBytes,
    maxFieldBytes: 64 * 1024,
    maxFields: 40,
    fileField: "file",
    // A transcript is text: bounded as the web app's text source is (413 over it).
    otherFileFields: { [TRANSCRIPT_PART]: MAX_TEXT_TRANSCRIPT_BYTES },
    pace: bodyPaceOf(request),
    // Awaited before the reader goes on: no more of the body is read, and nothing of the file
    // stored, until the fields are valid and the account admitted.
    beforeFile: async (fieldsSoFar, part) => {
      try {
        await validate(fieldsSoFar, part);
        await deps.admit();
      } catch (error) {
        throw closingConnection(error);
      }
    },
    // The recording's file only (a transcript is checked as text once it has arrived).
    checkFileHead: {
      headBytes: MEDIA_HEAD_BYTES,
      // An empty file is left to the clearer 400 below.
      check: (head) => {
        if (head.length > 0 && !looksLikeRecording(head)) throw new ApiError("unsupported_media", NOT_A_RECORDING_MESSAGE, { headers: CLOSE_AFTER });
      },
    },
  }).catch((error: unknown) => {
    // The client went away: a 4xx it will not read, and a warning, not an internal error.
    throw error instanceof UploadAborted ? bodyIncomplete() : error;
  });
  try {
    const { raw, parsed: fields } = await validate(form.fields, form.file?.field);
    if (!form.file) {
      throw ApiError.validation([
        { field: "file", code: "required", message: "A multipart request needs the recording in the field file (or a transcript in the field transcript)." },
      ]);
    }
    const { field, bytes, sha256, filename } = form.file;
    if (bytes === 0) throw ApiError.validation([{ field, code: "too_short", message: `The ${field} is empty.` }]);
    // The part's name is hashed too: the same bytes sent as a recording are another request.
    const hash = hashRequest({ fields: raw, file: { sha256, bytes, name: filename, ...(field === "file" ? {} : { part: field }) } });
    if (field === TRANSCRIPT_PART) {
      const text = readFileSync(form.file.path);
      rmSync(form.file.path, { force: true });
      return { parsed: { fields, recording: { kind: "transcript", transcript: parseTranscriptFile(text, filename, field), fileName: filename } }, hash };
    }
    return { parsed: { fields, recording: { kind: "upload", tmpPath: form.file.path, fileName: filename } }, hash };
  } catch (error) {
    if (form.file) rmSync(form.file.path, { force: true });
    throw error;
  }
}

/** A refusal while the client is still sending its file: answered with Connection: close, so the rest is not read. */
function closingConnection(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(error.code, error.message, { errors: error.errors, headers: { ...error.headers, ...CLOSE_AFTER }, warning: error.warning });
}

/** A browser form's empty inputs left out. */
function withoutEmpty(fields: Map<string, string[]>): Map<string, string[]> {
  return new Map([...fields].filter(([, values]) => !values.every((value) => value.trim() === "")));
}

async function receiveUrl(request: Request, deps: ReceiveDeps): Promise<{ parsed: ReceivedMeeting; hash: string }> {
  const body = await readJsonBody(request);
  if (body !== null && typeof body === "object" && TRANSCRIPT_PART in body) {
    throw ApiError.validation([{ field: TRANSCRIPT_PART, code: "invalid_type", message: "A transcript is a file part of a multipart/form-data request, not JSON." }]);
  }
  const { audio_url, ...fields } = parseOrThrow(createMeetingJson, body);
  await assertValidFields(fields, deps);
  try {
    await checkEgress(audio_url, deps.egress);
  } catch (error) {
    if (error instanceof EgressRefused) throw ApiError.validation([{ field: "audio_url", code: error.code, message: error.message }]);
    throw error;
  }
  await deps.admit();
  return { parsed: { fields, recording: { kind: "url", url: audio_url } }, hash: hashRequest(body) };
}

/** Frees what receiving made when the request is not executed (a replay, or a failure). */
export function discardReceived(received: ReceivedMeeting): void {
  if (received.recording.kind === "upload") rmSync(received.recording.tmpPath, { force: true });
}

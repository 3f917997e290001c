import { rmSync } from "node:fs";
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

export { MAX_UPLOAD_FILE_BYTES as MAX_UPLOAD_BYTES } from "../uploads/limits.ts";

export interface ReceivedMeeting {
  fields: CreateMeetingFields;
  recording: Recording;
}

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
 * Reads a POST /v1/meetings request: multipart with `file`, or JSON with `audio_url`, exactly
 * one of the two. An upload streams to a temp file; the hash covers the fields and the file's
 * digest, so a retried upload with another multipart boundary still matches its first try.
 */
export async function receiveMeeting(request: Request, deps: ReceiveDeps): Promise<{ parsed: ReceivedMeeting; hash: string }> {
  const contentType = (request.headers.get("content-type") ?? "").toLowerCase();
  if (contentType.startsWith("multipart/form-data")) return receiveUpload(request, deps);
  if (contentType.startsWith("application/json") || contentType === "") return receiveUrl(request, deps);
  throw new ApiError(
    "unsupported_media_type",
    `Send multipart/form-data with a file, or application/json with audio_url; the request was ${contentType}.`,
  );
}

/**
 * Validation before admission, as far as the multipart order allows: the text fields sent before
 * the file are validated when the file part begins, then the account is admitted, then the file
 * streams to disk (its first bytes checked: a recording, or 415). Fields sent after the file can
 * only be validated once it has arrived (docs/api-notes.md, "order of checks").
 */
async function receiveUpload(request: Request, deps: ReceiveDeps): Promise<{ parsed: ReceivedMeeting; hash: string }> {
  const validate = async (fields: Map<string, string[]>) => {
    const raw = multipartToObject(deps.dropEmptyFields ? withoutEmpty(fields) : fields);
    if ("audio_url" in raw) {
      throw ApiError.validation([{ field: "audio_url", code: "conflict", message: "Send either a file or an audio_url, not both." }]);
    }
    const parsed = parseOrThrow(createMeetingUpload, raw);
    await assertValidFields(parsed, deps);
    return { raw, parsed };
  };
  const form = await receiveMultipart(request, {
    tmpDir: deps.tmpDir,
    maxFileBytes: deps.maxUploadBytes,
    maxFieldBytes: 64 * 1024,
    maxFields: 40,
    fileField: "file",
    pace: bodyPaceOf(request),
    // Awaited before the reader goes on: no more of the body is read, and nothing of the file
    // stored, until the fields are valid and the account admitted.
    beforeFile: async (fieldsSoFar) => {
      try {
        await validate(fieldsSoFar);
        await deps.admit();
      } catch (error) {
        throw closingConnection(error);
      }
    },
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
    const { raw, parsed: fields } = await validate(form.fields);
    if (!form.file) {
      throw ApiError.validation([{ field: "file", code: "required", message: "A multipart request needs the recording in the field file." }]);
    }
    if (form.file.bytes === 0) throw ApiError.validation([{ field: "file", code: "too_short", message: "The file is empty." }]);
    return {
      parsed: { fields, recording: { kind: "upload", tmpPath: form.file.path, fileName: form.file.filename } },
      hash: hashRequest({ fields: raw, file: { sha256: form.file.sha256, bytes: form.file.bytes, name: form.file.filename } }),
    };
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

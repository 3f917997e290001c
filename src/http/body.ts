import { ApiError } from "../errors/api-error.ts";
import { bodyIncomplete, bodyTooSlow, CLOSE_AFTER } from "../errors/body-errors.ts";
import { watchBody } from "../lib/body-deadline.ts";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../lib/json-depth.ts";
import { bodyPaceOf } from "./request-context.ts";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a JSON request body strictly: JSON media type, bounded size, valid UTF-8, bounded
 * nesting, valid JSON. The body is read as a stream and refused (413) the moment it passes the
 * limit, with or without Content-Length, so a body that never ends costs at most the limit.
 * An empty body counts as `{}`, so a missing field is reported as such rather than as bad JSON.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readBounded(request, maxBytes);
  if (bytes.byteLength === 0) return {};
  const contentType = request.headers.get("content-type") ?? "";
  if (!isJsonMediaType(contentType)) {
    throw new ApiError(
      "unsupported_media_type",
      `This operation takes application/json; the request was sent as ${contentType || "no Content-Type"}.`,
    );
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError("malformed_body", "The request body is not valid UTF-8.");
  }
  assertDepth(text, "body");
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own wording is engine output, not the client's terms.
    throw new ApiError("malformed_body", "The request body is not valid JSON.");
  }
}

/** A validation error when a client's JSON (a body, or a multipart JSON field) nests too deep. */
export function assertDepth(text: string, field: string): void {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw ApiError.validation([{ field, code: "too_deep", message: `JSON may nest at most ${MAX_JSON_DEPTH} levels of arrays and objects.` }]);
  }
}

/**
 * The body's bytes, reading no further than one chunk past `maxBytes`, and giving up (408) on a
 * body that stalls or crawls (the request's body pace).
 */
export async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const watch = watchBody(bodyPaceOf(request), () => void reader.cancel().catch(() => {}));
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch {
        throw watch.expired ? bodyTooSlow(watch.expired) : bodyIncomplete();
      }
      if (watch.expired) throw bodyTooSlow(watch.expired);
      if (read.done) break;
      watch.received(read.value.byteLength);
      total += read.value.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(read.value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    watch.stop();
  }
  if (chunks.length === 1) return chunks[0]!;
  return Buffer.concat(chunks, total);
}

export function isJsonMediaType(contentType: string): boolean {
  const [type, ...params] = contentType.split(";").map((p) => p.trim().toLowerCase());
  if (type !== "application/json") return false;
  const charset = params.find((p) => p.startsWith("charset="));
  return !charset || charset === "charset=utf-8";
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("request_too_large", `The request body is larger than ${maxBytes} bytes.`, { headers: CLOSE_AFTER });
}


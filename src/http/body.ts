import { ApiError } from "../errors/api-error.ts";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../lib/json-depth.ts";

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

/** The body's bytes, reading no further than one chunk past `maxBytes`. */
async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
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
  return new ApiError("request_too_large", `The JSON body is larger than ${maxBytes} bytes.`);
}

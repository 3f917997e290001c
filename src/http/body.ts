import { ApiError } from "../errors/api-error.ts";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a JSON request body strictly: JSON media type, bounded size, valid UTF-8, valid JSON.
 * An empty body counts as `{}`, so a missing field is reported as such rather than as bad JSON.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
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
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError("malformed_body", `The request body is not valid JSON: ${(error as Error).message}`);
  }
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

import { ApiError } from "../errors/api-error.ts";

/** RFC 2046 bchars: a boundary is 1 to 70 of these and does not end in a space. No CR or LF, ever. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/**
 * The boundary of a multipart/form-data Content-Type. Another media type is 415; multipart/form-data
 * without a usable boundary is a malformed body.
 */
export function multipartBoundary(contentType: string | null): string {
  const [type = "", ...rest] = splitParams(contentType ?? "");
  if (type.trim().toLowerCase() !== "multipart/form-data") {
    throw new ApiError(
      "unsupported_media_type",
      `The request body must be multipart/form-data; it was sent as ${contentType || "no Content-Type"}.`,
    );
  }
  const boundary = parseParams(rest).get("boundary");
  if (boundary === undefined) throw new ApiError("malformed_body", "The multipart/form-data Content-Type has no boundary parameter.");
  if (!BOUNDARY.test(boundary)) {
    throw new ApiError("malformed_body", "The multipart boundary must be 1 to 70 characters of RFC 2046 bchars, not ending in a space.");
  }
  return boundary;
}

export interface PartHeaders {
  name: string;
  /** Present (possibly "") when the part is a file: Content-Disposition had filename or filename*. */
  filename: string | undefined;
  contentType: string | undefined;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

/** Parses the header block of one part (the bytes between the delimiter line and the empty line). */
export function parsePartHeaders(block: Uint8Array): PartHeaders {
  let text: string;
  try {
    text = utf8.decode(block);
  } catch {
    // Old clients send header parameters in Latin-1; every byte is a valid Latin-1 character.
    text = latin1.decode(block);
  }
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of text.split("\r\n")) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new ApiError("malformed_body", "A multipart part has a malformed header line.");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") {
      if (disposition !== undefined) throw new ApiError("malformed_body", "A multipart part has two Content-Disposition headers.");
      disposition = value;
    } else if (name === "content-type") {
      contentType = value;
    }
  }
  if (disposition === undefined) throw new ApiError("malformed_body", "A multipart part has no Content-Disposition header.");
  const [kind = "", ...rest] = splitParams(disposition);
  if (kind.trim().toLowerCase() !== "form-data") {
    throw new ApiError("malformed_body", "A multipart part's Content-Disposition is not form-data.");
  }
  const params = parseParams(rest);
  const name = params.get("name");
  if (name === undefined || name === "") throw new ApiError("malformed_body", "A multipart part has no name.");
  // Either parameter makes the part a file; a filename* that cannot be decoded falls back to filename.
  const extended = params.get("filename*");
  const plain = params.get("filename");
  const filename = extended !== undefined ? (decodeExtValue(extended) ?? plain ?? "") : plain;
  return { name, filename, contentType: contentType || undefined };
}

/** Splits `a; b=c; d="e;f"` on the semicolons outside quoted strings. */
function splitParams(value: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ";") {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) throw new ApiError("malformed_body", "A multipart header has an unterminated quoted string.");
  parts.push(value.slice(start));
  return parts;
}

/** `name=value` or `name="quoted \" value"` parameters; names lowercased; the first of a repeated name wins. */
function parseParams(parts: string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf("=");
    if (eq < 0) {
      if (part.trim() === "") continue;
      throw new ApiError("malformed_body", "A multipart header has a parameter without a value.");
    }
    const key = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"')) {
      if (value.length < 2 || !value.endsWith('"')) throw new ApiError("malformed_body", "A multipart header has a malformed quoted string.");
      value = value.slice(1, -1).replace(/\\(.)/g, "$1");
    }
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

/** RFC 8187 ext-value `charset'lang'pct-encoded`, UTF-8 or ISO-8859-1; undefined if unusable (then `filename` is used). */
function decodeExtValue(value: string): string | undefined {
  const match = /^([\w!#$%&+^`{}~-]+)'[\w-]*'(.*)$/.exec(value);
  if (!match) return undefined;
  const charset = match[1]!.toLowerCase();
  const encoded = match[2]!;
  // attr-chars are ASCII; anything else, or a bad escape, makes the value unusable.
  if (!/^(?:%[0-9A-Fa-f]{2}|[\x21-\x24\x26-\x7e])*$/.test(encoded)) return undefined;
  const bytes = Buffer.from(decodeURIComponentBytes(encoded));
  if (charset === "utf-8") {
    try {
      return utf8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  if (charset === "iso-8859-1") return latin1.decode(bytes);
  return undefined;
}

function decodeURIComponentBytes(encoded: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === "%") {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(encoded.charCodeAt(i));
    }
  }
  return bytes;
}

/** One byte range of a file, both ends included (RFC 9110 14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The range a Range header asks of a file of `size` bytes. Only one range is served: a header
 * that is absent, not in bytes, malformed or asks for several ranges gets the whole file (null),
 * which RFC 9110 allows; a range that starts past the end is "unsatisfiable" (416).
 */
export function parseByteRange(header: string | null, size: number): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const match = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return null;
  if (first === "") {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0) return "unsatisfiable";
    return size === 0 ? "unsatisfiable" : { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return "unsatisfiable";
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}

import { readBounded } from "../http/body.ts";

/** Web app forms are small: a sign-in, a title, a speaker name. */
export const MAX_FORM_BYTES = 64 * 1024;

/**
 * An application/x-www-form-urlencoded body, read within the size and pace bounds every body has
 * (a larger or stalled one throws the same ApiError the API answers with), parsed by the
 * platform's URLSearchParams. Any other media type yields no fields.
 */
export async function readFormBody(request: Request): Promise<URLSearchParams> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const bytes = await readBounded(request, MAX_FORM_BYTES);
  if (type !== "application/x-www-form-urlencoded") return new URLSearchParams();
  return new URLSearchParams(new TextDecoder("utf-8", { fatal: false }).decode(bytes));
}

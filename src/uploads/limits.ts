import { FORM_OVERHEAD_BYTES } from "./multipart.ts";

/** The spec's "2 GB" upload limit, read generously as 2 GiB so no file a user calls 2 GB is refused. */
export const MAX_UPLOAD_FILE_BYTES = 2 * 1024 ** 3;

/**
 * Bun.serve's maxRequestBodySize for the service (Bun's default is 128 MiB). Bodies stream and
 * every reader enforces its own limit (uploads 2 GiB, JSON 1 MiB), so Bun's limit is set far above
 * them: any oversized request is answered by the service with problem+json, not by Bun's bare 413.
 */
export const MAX_REQUEST_BODY_SIZE = 2 ** 40;

// Keep the ordering that makes the paragraph above true.
if (MAX_REQUEST_BODY_SIZE <= MAX_UPLOAD_FILE_BYTES + FORM_OVERHEAD_BYTES) throw new Error("MAX_REQUEST_BODY_SIZE too small");

import { FORM_OVERHEAD_BYTES } from "./multipart.ts";

/**
 * The spec's "2 GB" upload limit, in the SI unit the spec uses: 2,000,000,000 bytes. Stated the
 * same way everywhere (error messages, OpenAPI, the web app, docs), so no client sees two figures.
 */
export const MAX_UPLOAD_FILE_BYTES = 2_000_000_000;

/**
 * Bun.serve's maxRequestBodySize for the service (Bun's default is 128 MiB). Bodies stream and
 * every reader enforces its own limit (uploads 2 GB, JSON 1 MiB), so Bun's limit is set far above
 * them: any oversized request is answered by the service with problem+json, not by Bun's bare 413.
 */
export const MAX_REQUEST_BODY_SIZE = 2 ** 40;

// Keep the ordering that makes the paragraph above true.
if (MAX_REQUEST_BODY_SIZE <= MAX_UPLOAD_FILE_BYTES + FORM_OVERHEAD_BYTES) throw new Error("MAX_REQUEST_BODY_SIZE too small");

import { FORM_OVERHEAD_BYTES } from "./multipart.ts";

/** The spec's "2 GB" upload limit, read generously as 2 GiB so no file a user calls 2 GB is refused. */
export const MAX_UPLOAD_FILE_BYTES = 2 * 1024 ** 3;

/**
 * Bun.serve's maxRequestBodySize for the service (Bun's default is 128 MiB). Above the file limit
 * plus the form overhead receiveMultipart allows, so receiveMultipart, not Bun, answers 413 with
 * problem+json; Bun itself answers a bare 413 and closes only above this.
 */
export const MAX_REQUEST_BODY_SIZE = MAX_UPLOAD_FILE_BYTES + 16 * 1024 * 1024;

// Keep the ordering that makes the paragraph above true.
if (MAX_REQUEST_BODY_SIZE <= MAX_UPLOAD_FILE_BYTES + FORM_OVERHEAD_BYTES) throw new Error("MAX_REQUEST_BODY_SIZE too small");

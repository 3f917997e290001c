import { z } from "zod";

/** The client's own JSON on meetings and documents, echoed in jobs and events: at most 4 KB. */
export const MAX_METADATA_BYTES = 4096;

export const metadataInput = z
  .record(z.string(), z.unknown())
  .refine((value) => new TextEncoder().encode(JSON.stringify(value)).byteLength <= MAX_METADATA_BYTES, {
    message: `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON.`,
    params: { code: "too_large" },
  });

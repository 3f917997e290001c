/**
 * Every machine-readable error code the API answers with. The problem `type` URL points at
 * /docs/api/errors#<code>, a page rendered from this table, so a code and its documentation
 * cannot drift apart.
 */
export const ERROR_CATALOGUE = {
  validation_error: {
    status: 400,
    title: "Validation failed",
    description:
      "One or more fields are wrong. `errors` lists one entry per wrong field: `field` (a path such as `participants[0].email`), `code` (required, invalid_type, too_long, too_short, too_large, too_small, invalid_format, invalid_value, unknown_field) and `message`.",
  },
  malformed_body: {
    status: 400,
    title: "Malformed request body",
    description: "The body is not valid UTF-8 JSON. Nothing was changed.",
  },
  unauthorized: {
    status: 401,
    title: "Unauthorized",
    description:
      "The Authorization header is missing, or its Bearer credential is not a valid, unrevoked API key or an unexpired, unrevoked access token for this service.",
  },
  insufficient_scope: {
    status: 403,
    title: "Insufficient scope",
    description: "The credential is valid but lacks a scope this operation needs; `detail` names it.",
  },
  not_found: {
    status: 404,
    title: "Not found",
    description: "No such path, or no such resource in your account. A resource of another account answers this too.",
  },
  method_not_allowed: {
    status: 405,
    title: "Method not allowed",
    description: "The path exists but not with this HTTP method. The `Allow` header lists the methods it takes.",
  },
  transcript_not_ready: {
    status: 409,
    title: "Transcript not ready",
    description: "The transcript is requested before transcription completed. Wait for transcription.completed or poll the job.",
  },
  summary_not_ready: {
    status: 409,
    title: "Summary not ready",
    description:
      "The AI report is requested before it is ready, for a transcribe_only meeting, or a document is requested for a meeting without a report.",
  },
  idempotency_key_in_use: {
    status: 409,
    title: "Idempotency key in use",
    description: "A request with this Idempotency-Key is still being processed. Retry after it finishes.",
  },
  file_too_large: {
    status: 413,
    title: "File too large",
    description: "The uploaded file is larger than 2 GB (2,000,000,000 bytes). Nothing was kept.",
  },
  request_too_large: {
    status: 413,
    title: "Request too large",
    description: "The JSON body is larger than the service accepts (1 MiB).",
  },
  unsupported_media_type: {
    status: 415,
    title: "Unsupported media type",
    description: "The Content-Type is not one this operation accepts; `detail` names the ones it does.",
  },
  unsupported_media: {
    status: 415,
    title: "Not a recording",
    description:
      "The uploaded file does not start like an audio or video recording in a container the service decodes (WAV, MP3, FLAC, Ogg, M4A/MP4/MOV, WebM/Matroska, AAC, AMR, AIFF, WMA/ASF, AVI, MPEG...): a PDF or a text file renamed .mp3, for example. Its first bytes are checked while it is uploaded; nothing was kept.",
  },
  idempotency_key_reused: {
    status: 422,
    title: "Idempotency key reused",
    description: "This Idempotency-Key was used with a different request body within the last 24 hours.",
  },
  rate_limited: {
    status: 429,
    title: "Rate limited",
    description:
      "The credential used up its requests for the sliding 60-second window, or a webhook endpoint its test pings (20 per 60 seconds); `detail` says which. Wait the `Retry-After` seconds, then back off exponentially.",
  },
  parallel_processing_limit: {
    status: 429,
    title: "Parallel processing limit",
    description: "Every processing slot of the plan is busy. Nothing was created or billed. Retry after 30 seconds.",
  },
  insufficient_balance: {
    status: 402,
    title: "Insufficient balance",
    description: "No allowance, credit or on-demand budget can pay for this operation.",
  },
  spend_cap_reached: {
    status: 402,
    title: "Spend cap reached",
    description: "The on-demand spend cap of this month is reached.",
  },
  request_header_fields_too_large: {
    status: 431,
    title: "Request header fields too large",
    description: "The request headers add up to more than 16 KiB.",
  },
  internal_error: {
    status: 500,
    title: "Internal error",
    description: "The service failed unexpectedly. Quote the request_id when reporting it.",
  },
  insufficient_storage: {
    status: 507,
    title: "Insufficient storage",
    description:
      "The server's data disk is below the free space it keeps in reserve (or filled up while the upload was received), so it accepts no new recording now. Nothing was kept. Retry later; the operator frees space or adds disk.",
  },
  request_timeout: {
    status: 408,
    title: "Request timeout",
    description:
      "The request body arrived too slowly: no byte for longer than the server waits, or on average slower than it accepts. Nothing was kept. Retry on a better connection.",
  },
  upload_incomplete: {
    status: 400,
    title: "Upload incomplete",
    description: "The connection closed before the whole request body arrived. Nothing was kept. Send the request again.",
  },
  webapp_quota_reached: {
    status: 402,
    title: "Web app quota reached",
    description:
      "This month's web app quota of the account's plan (minutes of audio, or documents) is used up. Nothing was created. The web app's quotas are its own: the API's wallet is untouched, and the API still works.",
  },
  draft_closed: {
    status: 409,
    title: "Not a draft",
    description:
      "The web app sent a part of a recording, or asked to finish it, for a meeting that is no longer a draft: its recording is complete and it is queued or processed. Nothing was changed.",
  },
  draft_incomplete: {
    status: 409,
    title: "Recording parts missing",
    description:
      "The web app asked to finish a draft whose recording has gaps: `missing` lists the part numbers the server does not have. Send them, then finish again; what arrived is kept.",
  },
  draft_limit_reached: {
    status: 409,
    title: "Too many unfinished recordings",
    description:
      "The account already keeps as many open drafts (recordings and resumable uploads not yet finished) as it may, or their parts already hold as many bytes as it may (the operator's --max-open-drafts and --max-draft-bytes). Nothing was stored. Finish or delete a draft, then try again.",
  },
  legal_hold: {
    status: 409,
    title: "Under legal hold",
    description:
      "The meeting is under a legal hold (its own, or its client folder's): it cannot be deleted until the hold is lifted (PATCH legal_hold false on the meeting or the client). Nothing was deleted.",
  },
  vocabulary_term_exists: {
    status: 409,
    title: "Term already in the glossary",
    description:
      "The account's glossary (/v1/vocabulary) already holds this term, in this or another case. Nothing was changed: change that term (its variants) instead; `detail` names its id.",
  },
  not_ready: {
    status: 503,
    title: "Not ready",
    description: "The service is starting or shutting down, or a dependency it needs is unavailable.",
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

import type { MessageKey } from "../i18n.ts";

/*
 * Why a meeting failed, in words (issue 25): a job's error code (errors/job-codes.ts) mapped to a
 * plain sentence of the web app's messages. Shared by the meetings list and the meeting page;
 * codes of the same cause share a sentence, and an unknown code (or none) the general one.
 */
const SENTENCES: Record<string, MessageKey> = {
  unsupported_media: "failure.notRecording",
  audio_invalid: "failure.notRecording",
  no_audio: "failure.noAudio",
  audio_missing: "failure.noAudio",
  recording_too_long: "failure.tooLong",
  insufficient_storage: "failure.disk",
  url_invalid: "failure.download",
  url_not_https: "failure.download",
  address_not_allowed: "failure.download",
  host_unresolvable: "failure.download",
  too_many_redirects: "failure.download",
  download_too_large: "failure.download",
  download_timeout: "failure.download",
  download_http_error: "failure.download",
  download_failed: "failure.download",
  unsupported_language: "failure.language",
  insufficient_balance: "failure.quota",
  spend_cap_reached: "failure.quota",
  webapp_quota_reached: "failure.quota",
  stage_timeout: "failure.timeout",
  llm_invalid_output: "failure.report",
  llm_context_too_small: "failure.report",
  llm_context_failed: "failure.report",
  template_unavailable: "failure.report",
  canceled: "failure.canceled",
};

/** The sentence that says why a meeting failed, from its failed job's error code (null when none is known). */
export function failureReason(code: string | null | undefined): MessageKey {
  return (code && SENTENCES[code]) || "failure.general";
}

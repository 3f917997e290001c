/**
 * Every `job.error.code` a failed job can carry, with what it means for the client. These are
 * not HTTP problems (the catalogue.ts codes): a job fails after its request was accepted. The
 * page /docs/api/errors lists them too, under #job-<code>, so a code and its documentation
 * cannot drift apart.
 *
 * `message` is the client-facing sentence used whenever the failure's own message cannot be
 * shown: it would name a server path or repeat raw tool output (see public-message.ts).
 */
export const JOB_ERROR_CATALOGUE = {
  // The recording itself
  unsupported_media: {
    retryable: false,
    message: "The file is not a recording ffmpeg can decode.",
    description:
      "The file is not an audio or video recording in a container the service decodes (WAV, MP3, FLAC, Ogg/Opus, M4A/MP4/MOV, WebM/Matroska, AAC, AMR, AIFF, WMA/ASF, AVI, MPEG...). Playlists and lists of other files (m3u8, ffconcat) are refused whatever the file is called.",
  },
  no_audio: {
    retryable: false,
    message: "The recording contains no audio.",
    description: "The file is a valid container without an audio stream, or its audio stream holds no samples.",
  },
  recording_too_long: {
    retryable: false,
    message: "The recording is longer than the service's limit.",
    description:
      "The recording is longer than the operator's limit (--max-duration, 10 hours by default). Its length is read before decoding, and decoding stops at the limit too.",
  },
  insufficient_storage: {
    retryable: true,
    message: "The server has not enough free disk space to process the recording now. Try again later.",
    description:
      "The server's data disk lacks the space the decoded audio needs (about 115 MB per hour of recording) above its reserve. The job was tried again a few times; send the recording again later.",
  },
  // audio_url downloads
  url_invalid: {
    retryable: false,
    message: "The audio_url is not a valid URL.",
    description: "The audio_url, or a redirect it led to, is not a valid absolute URL, or carries credentials.",
  },
  url_not_https: {
    retryable: false,
    message: "The audio_url must use https.",
    description: "The audio_url, or a redirect it led to, is not https (http is allowed only for hosts the operator lists).",
  },
  address_not_allowed: {
    retryable: false,
    message: "The audio_url points at an address the service may not connect to.",
    description: "The host of the audio_url, or of a redirect, resolves to a private, loopback, link-local or other non-public address.",
  },
  host_unresolvable: {
    retryable: false,
    message: "The audio_url's host name could not be resolved.",
    description: "DNS has no address for the host of the audio_url or of a redirect.",
  },
  too_many_redirects: {
    retryable: false,
    message: "The audio_url redirected too many times.",
    description: "Following the audio_url took more than 5 redirects.",
  },
  download_too_large: {
    retryable: false,
    message: "The file at the audio_url is larger than the upload limit.",
    description: "The file at the audio_url is larger than the upload limit (2 GB: 2,000,000,000 bytes), announced or counted while downloading.",
  },
  download_timeout: {
    retryable: true,
    message: "The download of the audio_url did not finish in time.",
    description: "The download did not finish within the operator's limit (--download-timeout, 30 minutes by default).",
  },
  download_http_error: {
    retryable: false,
    message: "The server of the audio_url answered with an error.",
    description: "The server of the audio_url answered with an HTTP error status (the message gives it); 5xx answers are tried again.",
  },
  download_failed: {
    retryable: true,
    message: "The audio_url could not be downloaded.",
    description: "The connection to the server of the audio_url failed (refused, reset, TLS error...).",
  },
  // Transcription, diarization and the report
  unsupported_language: {
    retryable: false,
    message: "The requested language cannot be transcribed.",
    description: "The meeting's language is not one the speech model transcribes.",
  },
  model_missing: {
    retryable: false,
    message: "A model the service needs is not installed.",
    description: "A model file the processing needs is not installed on the server. The operator must install it (the message names the model).",
  },
  model_invalid: {
    retryable: false,
    message: "A model the service needs is damaged or not the expected file.",
    description: "A model file on the server is damaged, truncated or not the catalogued file. The operator must reinstall it (the message names the model).",
  },
  engine_load_failed: {
    retryable: false,
    message: "The processing engines could not be loaded.",
    description: "The server's processing engines failed to start (a configuration or installation fault). The operator finds the cause in the server log.",
  },
  engine_unavailable: {
    retryable: false,
    message: "A processing engine is not available on this server.",
    description: "A native engine library (whisper.cpp, sherpa-onnx, llama.cpp) cannot be loaded on this server.",
  },
  engine_config_invalid: {
    retryable: false,
    message: "The processing engines are configured wrongly.",
    description: "The operator's engine settings (e.g. decoding options) are not valid.",
  },
  config_invalid: {
    retryable: false,
    message: "The processing engines are configured wrongly.",
    description: "The operator's diarization settings are not valid.",
  },
  engine_closed: {
    retryable: false,
    message: "The report engine was stopped.",
    description: "The report engine was closed while a report was being written (the server was stopping).",
  },
  transcription_failed: {
    retryable: true,
    message: "The speech recognition engine failed on this recording.",
    description: "whisper.cpp failed while transcribing. The step was tried again before the job failed.",
  },
  vad_failed: {
    retryable: true,
    message: "Voice activity detection failed on this recording.",
    description: "The voice activity detector failed while finding speech. The step was tried again before the job failed.",
  },
  audio_invalid: {
    retryable: false,
    message: "The decoded audio is not usable.",
    description: "The audio decoded from the recording is not in the form the engines read (an internal fault).",
  },
  audio_missing: {
    retryable: false,
    message: "The decoded audio is missing.",
    description: "The audio decoded by an earlier step cannot be read (an internal fault, or the data was removed meanwhile).",
  },
  missing_intermediate: {
    retryable: false,
    message: "The result of an earlier processing step is missing.",
    description: "A file an earlier step wrote is gone (an internal fault, or the data was removed meanwhile).",
  },
  llm_invalid_output: {
    retryable: true,
    message: "The language model's answer is not a usable report or document.",
    description: "The language model's answer was cut off, empty, or does not fit the structure asked for (the report's, or a document's), on every try. The transcript and report stay available; a document request may be sent again.",
  },
  llm_context_too_small: {
    retryable: false,
    message: "The language model's context is too small for this meeting.",
    description: "The language model's context window cannot hold the transcript's parts (or a document's material) and an answer. The operator can configure a larger context; the transcript stays available.",
  },
  llm_context_failed: {
    retryable: false,
    message: "The report model could not be started.",
    description: "llama.cpp could not create a context for the report model (usually too little memory).",
  },
  template_unavailable: {
    retryable: false,
    message: "The document template is no longer in the catalogue.",
    description: "A document asked for at meeting creation names a template the operator has since removed from the catalogue. Request the document again with another template or a prompt.",
  },
  engine_error: {
    retryable: true,
    message: "The processing failed unexpectedly.",
    description: "An engine failed in a way it does not report with a code. The step was tried again before the job failed; the operator finds the cause in the server log.",
  },
  // Paying for it: a recording longer than its container announced, or an audio_url once downloaded
  insufficient_balance: {
    retryable: false,
    message: "The recording is longer than the account's balance can pay for, counting its other processing in progress.",
    description:
      "Its decoded length was learned only after it was accepted (an audio_url, or a container that did not say or understated it), and the wallet, beside what the account's other operations in progress hold, cannot pay for transcribing it, with no on-demand billing. Nothing was transcribed or debited.",
  },
  spend_cap_reached: {
    retryable: false,
    message: "The recording is longer than the account's spend cap allows, counting its other processing in progress.",
    description:
      "As insufficient_balance, with on-demand billing on: what is left under its spend cap cannot pay for transcribing the recording. Nothing was transcribed or debited.",
  },
  webapp_quota_reached: {
    retryable: false,
    message: "The recording is longer than what is left of this month's web app quota of audio.",
    description: "A web app recording's decoded length does not fit in the month's minutes left, counting the other recordings in progress. Nothing was transcribed or counted.",
  },
  // The scheduler and its worker processes
  stage_timeout: {
    retryable: true,
    message: "A processing step took longer than the service's limit.",
    description: "A step ran longer than the operator's limit (--stage-timeout) and was stopped, on every try.",
  },
  worker_crashed: {
    retryable: true,
    message: "The worker process died during a processing step.",
    description: "The process running the step died (for example, out of memory), on every try.",
  },
  worker_start_failed: {
    retryable: true,
    message: "The worker process could not be started.",
    description: "The process that runs processing steps exited before it was ready, on every try.",
  },
  shutting_down: {
    retryable: true,
    message: "The service is stopping.",
    description: "The service was stopping when the step was to run. The job resumes when the service starts again.",
  },
  invalid_step: {
    retryable: false,
    message: "The job has no valid next step.",
    description: "The job's stored state names no processing step the service knows (an internal fault).",
  },
  canceled: {
    retryable: false,
    message: "The processing was canceled.",
    description: "The step was stopped because the job was canceled (its meeting was deleted). A canceled job has status canceled, so this code is rarely seen.",
  },
} as const satisfies Record<string, { retryable: boolean; message: string; description: string }>;

export type JobErrorCode = keyof typeof JOB_ERROR_CATALOGUE;

export function isJobErrorCode(code: string): code is JobErrorCode {
  return Object.hasOwn(JOB_ERROR_CATALOGUE, code);
}

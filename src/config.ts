import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { BuiltinEngineSettings } from "./engines/builtin.ts";
import type { OAuthSettings } from "./auth/access-tokens.ts";
import { jwksUrlRefusal } from "./auth/idp-keys.ts";
import type { SsoSettings } from "./auth/oidc-sign-in.ts";
import { CONFIG_OPTION } from "./cli/config-file.ts";
import { UsageError, type OptionSpec, type OptionValues } from "./cli/options.ts";
import { DEFAULT_BODY_PACE, type BodyPace } from "./lib/body-deadline.ts";
import type { RateLimits } from "./http/pipeline.ts";
import { DEFAULT_BILLING, type BillingSettings } from "./usage/settings.ts";
import { MODEL_PROFILES, selectModels, type ModelProfile } from "./models/selection.ts";
import { DEFAULT_PARALLEL_SLOTS, type ParallelSlots } from "./jobs/slots.ts";
import { parseEgressAllow, type EgressPolicy } from "./net/egress.ts";

/** `iss` of the access tokens the service mints itself (admin token create). */
export const LOCAL_TOKEN_ISSUER = "verbatim-local";

export const DATA_DIR_OPTION: OptionSpec = {
  name: "data-dir",
  type: "string",
  env: "VERBATIM_DATA_DIR",
  default: "./data",
  help: "Folder of the SQLite database, recordings and the token-signing key.",
};

export const TOKEN_MAX_TTL_OPTION: OptionSpec = {
  name: "token-max-ttl",
  type: "int",
  env: "VERBATIM_TOKEN_MAX_TTL",
  default: "86400",
  help: "Longest lifetime in seconds of a token admin token create mints; serve refuses its own tokens that live longer (exp - iat), and admin token revoke --jti keeps a revocation this long.",
};

export const OAUTH_OPTIONS: OptionSpec[] = [
  {
    name: "oauth-audience",
    type: "string",
    env: "VERBATIM_OAUTH_AUDIENCE",
    default: "verbatim-api",
    help: "The aud claim every OAuth access token must carry.",
  },
  {
    name: "oauth-issuer",
    type: "string",
    env: "VERBATIM_OAUTH_ISSUER",
    help: "Issuer (iss) of the firm's identity provider, whose access tokens are also accepted.",
  },
  {
    name: "oauth-jwks-url",
    type: "string",
    env: "VERBATIM_OAUTH_JWKS_URL",
    help: "JWKS URL of that identity provider (needed with --oauth-issuer): https, or http only to a host listed in --egress-allow; fetched through the egress guard like audio_url.",
  },
  TOKEN_MAX_TTL_OPTION,
];

export const SERVE_OPTIONS: OptionSpec[] = [
  CONFIG_OPTION,
  { name: "host", type: "string", env: "VERBATIM_HOST", default: "127.0.0.1", help: "Address to listen on." },
  { name: "port", type: "int", env: "VERBATIM_PORT", default: "8080", help: "Port to listen on; 0 picks a free one and prints it." },
  DATA_DIR_OPTION,
  {
    name: "models-dir",
    type: "string",
    env: "VERBATIM_MODELS_DIR",
    default: "./models",
    help: "Folder of the speech, diarization and language models.",
  },
  {
    name: "public-url",
    type: "string",
    env: "VERBATIM_PUBLIC_URL",
    help: "Base URL clients reach the service at, for links and problem types (default http://HOST:PORT).",
  },
  {
    name: "rate-limits",
    type: "string",
    env: "VERBATIM_RATE_LIMITS",
    default: "free=30,standard=60,pro=120,anonymous=30",
    valueName: "plan=n,...",
    help: "Requests per credential per sliding 60 s window, by plan; anonymous counts per client address.",
  },
  ...OAUTH_OPTIONS,
  { name: "ffmpeg", type: "string", env: "VERBATIM_FFMPEG", default: "ffmpeg", help: "The ffmpeg executable." },
  {
    name: "egress-allow",
    type: "string",
    env: "VERBATIM_EGRESS_ALLOW",
    default: "",
    valueName: "cidr|host,...",
    help: "Internal hosts and CIDRs the service may fetch from (audio_url, webhooks), e.g. 10.0.0.0/8,files.internal. Public addresses are always allowed; these may also use http.",
  },
  {
    name: "ca-file",
    type: "string",
    env: "VERBATIM_CA_FILE",
    help: "PEM bundle of the CA(s) that sign internal receivers' certificates, trusted for webhook deliveries besides the system roots (NODE_EXTRA_CA_CERTS is honoured too). Verification is never turned off.",
  },
  {
    name: "smtp-url",
    type: "string",
    env: "VERBATIM_SMTP_URL",
    help: "The firm's SMTP relay (smtp://host:25, smtps://user:pass@host:465), used to tell owners that a webhook endpoint was disabled; without it, a warning is logged.",
  },
  {
    name: "smtp-from",
    type: "string",
    env: "VERBATIM_SMTP_FROM",
    default: "Verbatim <verbatim@localhost>",
    help: "The From address of the service's emails.",
  },
  {
    name: "workers",
    type: "int",
    env: "VERBATIM_WORKERS",
    default: "1",
    help: "Worker processes running jobs at once (one per GPU, or about cores / engine threads on CPU).",
  },
  {
    name: "parallel-slots",
    type: "string",
    env: "VERBATIM_PARALLEL_SLOTS",
    default: "free=1,standard=3,pro=5",
    valueName: "plan=n,...",
    help: "Processings an account may have queued or running at once, by plan.",
  },
  { name: "tls-cert", type: "string", env: "VERBATIM_TLS_CERT", help: "PEM certificate (chain) to serve HTTPS directly; with --tls-key. Without both, plain HTTP for a reverse proxy in front." },
  { name: "tls-key", type: "string", env: "VERBATIM_TLS_KEY", help: "PEM private key of --tls-cert." },
  {
    name: "sso-issuer",
    type: "string",
    env: "VERBATIM_SSO_ISSUER",
    help: "Issuer URL of the firm's OpenID Connect provider for web app sign-in (its /.well-known/openid-configuration is read through the egress guard): https, or http only to a host listed in --egress-allow.",
  },
  { name: "sso-client-id", type: "string", env: "VERBATIM_SSO_CLIENT_ID", help: "Client id of Verbatim at that provider (needed with --sso-issuer)." },
  {
    name: "sso-client-secret",
    type: "string",
    env: "VERBATIM_SSO_CLIENT_SECRET",
    help: "Client secret of Verbatim at that provider (confidential client; PKCE is used as well). Prefer the environment variable to the flag.",
  },
  { name: "sso-name", type: "string", env: "VERBATIM_SSO_NAME", default: "single sign-on", help: "What the sign-in page's button names the provider." },
  {
    name: "metrics-token",
    type: "string",
    env: "VERBATIM_METRICS_TOKEN",
    help: "Bearer token GET /metrics requires (the Prometheus scraper's); without it /metrics is open to whoever reaches the port.",
  },
  {
    name: "allowances",
    type: "string",
    env: "VERBATIM_ALLOWANCES",
    default: "free=500,standard=5000,pro=20000",
    valueName: "plan=minor,...",
    help: "Each plan's monthly API wallet, in minor units of --currency (cents): usage is debited from it first.",
  },
  {
    name: "rates",
    type: "string",
    env: "VERBATIM_RATES",
    default: "transcription_hour=60,report_mtok=200,document_mtok=200",
    valueName: "name=minor,...",
    help: "Unit prices in minor units: per hour of audio transcribed, and per million tokens of AI reports and documents.",
  },
  { name: "currency", type: "string", env: "VERBATIM_CURRENCY", default: "EUR", help: "The ISO 4217 currency of allowances, rates and the ledger." },
  {
    name: "webapp-audio-minutes",
    type: "string",
    env: "VERBATIM_WEBAPP_AUDIO_MINUTES",
    default: "free=120,standard=1200,pro=6000",
    valueName: "plan=minutes,...",
    help: "Each plan's monthly quota of audio the web app processes (uploads and recordings); never drawn from the API wallet.",
  },
  {
    name: "webapp-documents",
    type: "string",
    env: "VERBATIM_WEBAPP_DOCUMENTS",
    default: "free=10,standard=100,pro=500",
    valueName: "plan=count,...",
    help: "Each plan's monthly quota of documents written from the web app (deleted ones still count).",
  },
  {
    name: "admission-hold",
    type: "int",
    env: "VERBATIM_ADMISSION_HOLD",
    default: "5",
    help: "Minor units each admitted, unfinished processing holds of the balance: a new one is admitted only when the balance covers one more hold.",
  },
  {
    name: "stage-timeout",
    type: "int",
    env: "VERBATIM_STAGE_TIMEOUT",
    default: "3600",
    help: "Seconds one processing step may run before its worker is killed and the step retried.",
  },
  {
    name: "download-timeout",
    type: "int",
    env: "VERBATIM_DOWNLOAD_TIMEOUT",
    default: "1800",
    help: "Seconds an audio_url download may take.",
  },
  {
    name: "max-duration",
    type: "int",
    env: "VERBATIM_MAX_DURATION",
    default: "36000",
    help: "Longest recording accepted, in seconds (probed before decoding; decoding stops there too).",
  },
  {
    name: "min-free-disk-percent",
    type: "int",
    env: "VERBATIM_MIN_FREE_DISK_PERCENT",
    default: "5",
    help: "Free share of the data disk below which new uploads are refused (507) and recordings are not decoded; the floor is the larger of this and --min-free-disk-gb.",
  },
  {
    name: "min-free-disk-gb",
    type: "int",
    env: "VERBATIM_MIN_FREE_DISK_GB",
    default: "2",
    help: "Free GiB on the data disk below which new uploads are refused (507) and recordings are not decoded.",
  },
  {
    name: "templates-dir",
    type: "string",
    env: "VERBATIM_TEMPLATES_DIR",
    help: "Folder of the firm's own document templates (*.md with front matter), loaded at start beside the shipped ones; a bad file is reported and skipped.",
  },
  {
    name: "cjk-font",
    type: "string",
    env: "VERBATIM_CJK_FONT",
    help: "A TrueType/OpenType font file with CJK coverage (e.g. NotoSansCJK), used in PDF renders for Chinese, Japanese and Korean text; the embedded DejaVu Sans covers Latin, Greek and Cyrillic.",
  },
  {
    name: "body-idle-timeout",
    type: "int",
    env: "VERBATIM_BODY_IDLE_TIMEOUT",
    default: "60",
    help: "Seconds a request body may send nothing before the server answers 408 and drops it; after its first minute a body must also average 1 KiB/s.",
  },
  {
    name: "sweep-interval",
    type: "int",
    env: "VERBATIM_SWEEP_INTERVAL",
    default: "600",
    help: "Seconds between retention sweeps (expired idempotency keys, stale partial uploads, expired token revocations).",
  },
  {
    name: "engines",
    type: "string",
    env: "VERBATIM_ENGINES",
    default: "builtin",
    help: "builtin, or the path of a module exporting createEngines(settings) (other engines, test doubles).",
  },
  {
    name: "models-profile",
    type: "string",
    env: "VERBATIM_MODELS_PROFILE",
    default: "auto",
    valueName: "auto|gpu|cpu|stand-in",
    help: "The models run for roles no --*-model names: a profile's (verbatim models install --profile P), stand-in (development and tests), or auto: each role's installed gpu, then cpu, profile model, else its stand-in.",
  },
  { name: "whisper-model", type: "string", env: "VERBATIM_WHISPER_MODEL", help: "whisper.cpp ggml model, a name in the models directory (or an absolute path); default from --models-profile." },
  { name: "vad-model", type: "string", env: "VERBATIM_VAD_MODEL", help: "Silero VAD model: the ONNX export (run by sherpa-onnx) or whisper.cpp's ggml one; none turns VAD gating off. Default from --models-profile." },
  { name: "segmentation-model", type: "string", env: "VERBATIM_SEGMENTATION_MODEL", help: "Speaker segmentation ONNX (pyannote interface); default from --models-profile." },
  { name: "embedding-model", type: "string", env: "VERBATIM_EMBEDDING_MODEL", help: "Speaker embedding ONNX (WeSpeaker / 3D-Speaker); default from --models-profile." },
  { name: "llm-model", type: "string", env: "VERBATIM_LLM_MODEL", help: "GGUF instruct model for the AI report and documents; default from --models-profile." },
  { name: "threads", type: "int", env: "VERBATIM_THREADS", default: "0", help: "CPU threads each engine uses; 0: the cores divided among the workers (library defaults oversubscribe small machines)." },
  { name: "gpu", type: "string", env: "VERBATIM_GPU", default: "auto", valueName: "auto|off", help: "Use a GPU build of the engines when a device is present." },
  { name: "whisper-decoding", type: "string", env: "VERBATIM_WHISPER_DECODING", default: "{}", valueName: "json", help: "whisper.cpp decoding options as JSON, over the defaults (greedy, no temperature fallback)." },
  { name: "diarization-threshold", type: "string", env: "VERBATIM_DIARIZATION_THRESHOLD", default: "0.8", valueName: "number", help: "Clustering threshold when the speaker count is not given; measure it for your embedding model." },
  { name: "min-speakers", type: "int", env: "VERBATIM_MIN_SPEAKERS", default: "0", help: "Default lower bound on speakers when a meeting gives none; 0: no bound." },
  { name: "max-speakers", type: "int", env: "VERBATIM_MAX_SPEAKERS", default: "0", help: "Default upper bound on speakers when a meeting gives none; 0: no bound (participants given bound it)." },
  { name: "llm-context", type: "int", env: "VERBATIM_LLM_CONTEXT", default: "0", help: "Context tokens for the report model; 0 takes the model's own (at most 8192)." },
  {
    name: "log-requests",
    type: "bool",
    env: "VERBATIM_LOG_REQUESTS",
    default: "true",
    help: "Write one JSON line per request to standard output.",
  },
];

export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  modelsDir: string;
  publicUrl: string | undefined;
  rateLimits: RateLimits;
  oauth: OAuthSettings;
  ffmpegPath: string;
  egress: EgressPolicy;
  egressAllowText: string;
  workers: number;
  parallelSlots: ParallelSlots;
  stageTimeoutSeconds: number;
  downloadTimeoutSeconds: number;
  engines: string;
  engineSettings: BuiltinEngineSettings;
  logRequests: boolean;
  maxDurationSeconds: number;
  sweepIntervalSeconds: number;
  templatesDir: string | undefined;
  cjkFontPath: string | null;
  billing: BillingSettings;
  metricsToken: string | null;
  /** Serve HTTPS with these PEM files; null: plain HTTP. */
  tls: { cert: string; key: string } | null;
  /** The operator's CA bundle (PEM) for outbound TLS, or null. */
  caFile: string | null;
  smtp: { url: string | null; from: string };
  bodyPace: BodyPace;
  /** Free bytes the data disk keeps: the larger of a share of its size and an absolute amount. */
  minFreeDisk: { percent: number; bytes: number };
  /** Our limit on the request headers; Bun's parser ceiling is set higher so we can answer 431 ourselves. */
  maxHeaderBytes: number;
  /** The web app's single sign-on through the firm's OpenID Connect provider, or null. */
  sso: SsoSettings | null;
}

function ssoSettings(values: OptionValues, egress: EgressPolicy): SsoSettings | null {
  const issuer = (values["sso-issuer"] as string | undefined)?.replace(/\/+$/, "");
  const clientId = values["sso-client-id"] as string | undefined;
  if (!issuer && !clientId) return null;
  if (!issuer || !clientId) throw new UsageError("--sso-issuer and --sso-client-id go together");
  if (!URL.canParse(issuer)) throw new UsageError(`--sso-issuer is not a URL: ${issuer}`);
  const refusal = jwksUrlRefusal(`${issuer}/.well-known/openid-configuration`, egress);
  if (refusal) throw new UsageError(`--sso-issuer ${refusal}: ${issuer}`);
  return { issuer, clientId, clientSecret: (values["sso-client-secret"] as string | undefined) || null, name: values["sso-name"] as string };
}

export function tokenMaxTtl(values: OptionValues): number {
  const seconds = values["token-max-ttl"] as number;
  if (seconds < 1) throw new UsageError("--token-max-ttl must be at least 1 second");
  return seconds;
}

/**
 * The OAuth settings. With `egress` (serve, which fetches the JWKS) the JWKS URL must also be one
 * the egress guard would fetch: https, or http to a host the allowlist names.
 */
export function oauthSettings(values: OptionValues, egress?: EgressPolicy): OAuthSettings {
  const issuer = values["oauth-issuer"] as string | undefined;
  const jwksUrl = values["oauth-jwks-url"] as string | undefined;
  if (Boolean(issuer) !== Boolean(jwksUrl)) throw new UsageError("--oauth-issuer and --oauth-jwks-url go together");
  if (jwksUrl && !URL.canParse(jwksUrl)) throw new UsageError(`--oauth-jwks-url is not a URL: ${jwksUrl}`);
  const refusal = jwksUrl && egress ? jwksUrlRefusal(jwksUrl, egress) : undefined;
  if (refusal) throw new UsageError(`--oauth-jwks-url ${refusal}: ${jwksUrl}`);
  return {
    localIssuer: LOCAL_TOKEN_ISSUER,
    audience: values["oauth-audience"] as string,
    maxLocalTtlSeconds: tokenMaxTtl(values),
    external: issuer && jwksUrl ? { issuer, jwksUrl } : undefined,
  };
}

/** "free=30,pro=120": numbers by plan over the defaults; used for rate limits and parallel slots. */
function parsePlanNumbers<T extends object>(option: string, text: string, defaults: T, rules: { allowZero?: boolean; allowUnderscore?: boolean } = {}): T {
  const values: Record<string, number> = { ...(defaults as Record<string, number>) };
  const least = rules.allowZero ? 0 : 1;
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const match = (rules.allowUnderscore ? /^([a-z_]+)=(\d+)$/ : /^([a-z]+)=(\d+)$/).exec(part);
    if (!match || !(match[1]! in values) || Number(match[2]) < least) {
      throw new UsageError(`--${option}: expected ${Object.keys(values).join("|")}=n with n >= ${least}, got ${JSON.stringify(part)}`);
    }
    values[match[1]!] = Number(match[2]);
  }
  return values as T;
}

function tlsFiles(values: OptionValues): { cert: string; key: string } | null {
  const cert = values["tls-cert"] as string | undefined;
  const key = values["tls-key"] as string | undefined;
  if (!cert && !key) return null;
  if (!cert || !key) throw new UsageError("--tls-cert and --tls-key go together: give both, or neither");
  for (const [option, path] of [["tls-cert", cert], ["tls-key", key]] as const) {
    if (!existsSync(path)) throw new UsageError(`--${option}: no such file: ${path}`);
  }
  return { cert: resolve(cert), key: resolve(key) };
}

function billingSettings(values: OptionValues): BillingSettings {
  const currency = (values.currency as string).toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError(`--currency: expected an ISO 4217 code such as EUR, got ${JSON.stringify(values.currency)}`);
  const rates = parsePlanNumbers("rates", values.rates as string, { transcription_hour: 60, report_mtok: 200, document_mtok: 200 }, { allowUnderscore: true });
  return {
    currency,
    allowances: parsePlanNumbers("allowances", values.allowances as string, { ...DEFAULT_BILLING.allowances }, { allowZero: true }),
    rates: { transcriptionPerHour: rates.transcription_hour, reportPerMillionTokens: rates.report_mtok, documentPerMillionTokens: rates.document_mtok },
    holdPerOperation: Math.max(0, Number(values["admission-hold"])),
    webappQuotas: {
      audioMinutes: parsePlanNumbers("webapp-audio-minutes", values["webapp-audio-minutes"] as string, { ...DEFAULT_BILLING.webappQuotas.audioMinutes }, { allowZero: true }),
      documents: parsePlanNumbers("webapp-documents", values["webapp-documents"] as string, { ...DEFAULT_BILLING.webappQuotas.documents }, { allowZero: true }),
    },
  };
}

export function parseRateLimits(text: string): RateLimits {
  return parsePlanNumbers("rate-limits", text, { free: 30, standard: 60, pro: 120, anonymous: 30 });
}

function egressPolicy(text: string): EgressPolicy {
  try {
    return parseEgressAllow(text);
  } catch (error) {
    throw new UsageError(`--egress-allow: ${(error as Error).message}`);
  }
}

function engineSettings(values: OptionValues): BuiltinEngineSettings {
  const gpu = values.gpu as string;
  if (gpu !== "auto" && gpu !== "off") throw new UsageError(`--gpu must be auto or off, got ${gpu}`);
  let decoding: unknown;
  try {
    decoding = JSON.parse(values["whisper-decoding"] as string);
  } catch {
    throw new UsageError("--whisper-decoding must be a JSON object");
  }
  if (decoding === null || typeof decoding !== "object" || Array.isArray(decoding)) throw new UsageError("--whisper-decoding must be a JSON object");
  const threshold = Number(values["diarization-threshold"]);
  if (!Number.isFinite(threshold) || threshold <= 0) throw new UsageError("--diarization-threshold must be a positive number");
  const profile = values["models-profile"] as string;
  if (!(MODEL_PROFILES as readonly string[]).includes(profile)) throw new UsageError(`--models-profile must be one of ${MODEL_PROFILES.join(", ")}, got ${profile}`);
  const modelsDir = resolve(values["models-dir"] as string);
  const chosen = selectModels(modelsDir, profile as ModelProfile);
  const named = (option: string, role: keyof typeof chosen) => (values[option] as string | undefined) ?? chosen[role];
  const vad = named("vad-model", "vad");
  const minSpeakers = (values["min-speakers"] as number) || null;
  const maxSpeakers = (values["max-speakers"] as number) || null;
  if ((minSpeakers ?? 0) < 0 || (maxSpeakers ?? 0) < 0) throw new UsageError("--min-speakers and --max-speakers must not be negative");
  if (minSpeakers && maxSpeakers && minSpeakers > maxSpeakers) throw new UsageError("--min-speakers is above --max-speakers");
  return {
    modelsDir,
    models: {
      whisper: named("whisper-model", "whisper"),
      vad: vad === "none" ? null : vad,
      segmentation: named("segmentation-model", "segmentation"),
      embedding: named("embedding-model", "embedding"),
      llm: named("llm-model", "llm"),
    },
    threads: engineThreads(values),
    gpu: gpu === "auto" ? "auto" : false,
    whisperDecoding: decoding as Record<string, unknown>,
    diarizationThreshold: threshold,
    llmContextSize: (values["llm-context"] as number) || null,
    speakers: { min: minSpeakers, max: maxSpeakers },
  };
}

/** Explicit, or the cores shared among the workers: two workers on 2 cores get 1 thread each. */
function engineThreads(values: OptionValues): number {
  const threads = values.threads as number;
  if (threads < 0) throw new UsageError("--threads must be 0 (automatic) or more");
  return threads || Math.max(1, Math.floor(availableParallelism() / Math.max(1, values.workers as number)));
}

function atLeastOne(values: OptionValues, name: string): number {
  const value = values[name] as number;
  if (value < 1) throw new UsageError(`--${name} must be at least 1`);
  return value;
}

function minFreeDisk(values: OptionValues): { percent: number; bytes: number } {
  const percent = values["min-free-disk-percent"] as number;
  const gb = values["min-free-disk-gb"] as number;
  if (percent < 0 || percent > 90) throw new UsageError("--min-free-disk-percent must be 0 to 90");
  if (gb < 0) throw new UsageError("--min-free-disk-gb must not be negative");
  return { percent, bytes: gb * 1024 ** 3 };
}

export function serviceConfig(values: OptionValues): ServiceConfig {
  const port = values.port as number;
  if (port > 65535) throw new UsageError(`--port must be 0 to 65535, got ${port}`);
  const publicUrl = values["public-url"] as string | undefined;
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) throw new UsageError(`--public-url is not a URL: ${publicUrl}`);
  return {
    host: values.host as string,
    port,
    dataDir: resolve(values["data-dir"] as string),
    modelsDir: resolve(values["models-dir"] as string),
    publicUrl: publicUrl?.replace(/\/+$/, ""),
    rateLimits: parseRateLimits(values["rate-limits"] as string),
    oauth: oauthSettings(values, egressPolicy(values["egress-allow"] as string)),
    ffmpegPath: values.ffmpeg as string,
    egress: egressPolicy(values["egress-allow"] as string),
    egressAllowText: values["egress-allow"] as string,
    workers: atLeastOne(values, "workers"),
    parallelSlots: parsePlanNumbers("parallel-slots", values["parallel-slots"] as string, DEFAULT_PARALLEL_SLOTS),
    stageTimeoutSeconds: atLeastOne(values, "stage-timeout"),
    downloadTimeoutSeconds: atLeastOne(values, "download-timeout"),
    maxDurationSeconds: atLeastOne(values, "max-duration"),
    sweepIntervalSeconds: atLeastOne(values, "sweep-interval"),
    templatesDir: values["templates-dir"] ? resolve(values["templates-dir"] as string) : undefined,
    cjkFontPath: values["cjk-font"] ? resolve(values["cjk-font"] as string) : null,
    caFile: values["ca-file"] ? resolve(values["ca-file"] as string) : null,
    billing: billingSettings(values),
    metricsToken: (values["metrics-token"] as string | undefined) || null,
    tls: tlsFiles(values),
    smtp: { url: (values["smtp-url"] as string | undefined) || null, from: values["smtp-from"] as string },
    bodyPace: { ...DEFAULT_BODY_PACE, idleMs: atLeastOne(values, "body-idle-timeout") * 1000 },
    minFreeDisk: minFreeDisk(values),
    engines: values.engines as string,
    engineSettings: engineSettings(values),
    logRequests: values["log-requests"] as boolean,
    maxHeaderBytes: 16 * 1024,
    sso: ssoSettings(values, egressPolicy(values["egress-allow"] as string)),
  };
}

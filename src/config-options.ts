// The options of `verbatim serve` and the admin commands: names, environment variables,
// defaults and help, declared once. config.ts turns their values into the service's configuration.
import type { OptionSpec } from "./lib/option-spec.ts";

/** The configuration file (cli/config-file.ts reads it). */
export const CONFIG_OPTION: OptionSpec = {
  name: "config",
  type: "string",
  env: "VERBATIM_CONFIG",
  valueName: "file.toml|file.json",
  help: "A configuration file (TOML or JSON) whose keys are these options' names, e.g. data-dir = \"/var/lib/verbatim\". Flags and environment variables win over it.",
};

export const DATA_DIR_OPTION: OptionSpec = {
  name: "data-dir",
  type: "string",
  env: "VERBATIM_DATA_DIR",
  default: "./data",
  help: "Folder of the SQLite database, recordings and the token-signing key.",
};

/** Where clients reach the service: links it gives out (webhooks' meeting URLs, sign-in links) are built on it. */
export const PUBLIC_URL_OPTION: OptionSpec = {
  name: "public-url",
  type: "string",
  env: "VERBATIM_PUBLIC_URL",
  help: "Base URL clients reach the service at, for links and problem types (default http://HOST:PORT).",
};

/** PostgreSQL instead of the data dir's SQLite file: what lets several nodes share one database (issue 22). */
export const DATABASE_URL_OPTION: OptionSpec = {
  name: "database-url",
  type: "string",
  env: "VERBATIM_DATABASE_URL",
  valueName: "postgres://user:password@host:5432/db",
  help: "Run every store on this PostgreSQL 15+ database instead of the SQLite file in the data dir, so API and worker nodes on several machines share it. Migrations are applied at start, once, whichever node starts first. Its password is never printed.",
};

/** Which part of the service this process runs (issue 22): API nodes and worker nodes apart. */
export const ROLE_OPTION: OptionSpec = {
  name: "role",
  type: "string",
  env: "VERBATIM_ROLE",
  default: "all",
  valueName: "api|worker|all",
  help: "api: serve the API and the web app, never run a model; worker: run job steps (the models), never listen; all: both (the appliance). api and worker need --database-url (several nodes share PostgreSQL) and a --storage-dir every node mounts; any number of each, started in any order.",
};

export const DATABASE_POOL_OPTION: OptionSpec = {
  name: "database-pool-size",
  type: "int",
  env: "VERBATIM_DATABASE_POOL_SIZE",
  default: "10",
  help: "PostgreSQL connections this process may hold at once (with --database-url).",
};
export const STORAGE_DIR_OPTION: OptionSpec = {
  name: "storage-dir",
  type: "string",
  env: "VERBATIM_STORAGE_DIR",
  help: "Folder of the meetings' files (recordings, decoded audio, transcripts, renders) and of uploads being received; every API and worker node must mount the same one (NFS, a Docker volume). Default: the data dir, where they always were.",
};

/** The storage folder the values name: --storage-dir, else the data dir's (nothing moves on an existing install). */
export function storageDirOf(values: Record<string, unknown>): string {
  return (values["storage-dir"] as string | undefined) || (values["data-dir"] as string);
}

export const TOKEN_MAX_TTL_OPTION: OptionSpec = {
  name: "token-max-ttl",
  type: "int",
  env: "VERBATIM_TOKEN_MAX_TTL",
  default: "86400",
  help: "Longest lifetime in seconds of a token admin token create mints; serve refuses its own tokens that live longer (exp - iat), and admin token revoke --jti keeps a revocation this long.",
};

export const MAX_API_KEYS_OPTION: OptionSpec = {
  name: "max-api-keys",
  type: "int",
  env: "VERBATIM_MAX_API_KEYS",
  default: "20",
  help: "Active (unrevoked) API keys one account may hold; creating one more is refused until one is revoked. The rate limit counts per key, so this bounds an account's requests to this many times its plan's rate.",
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

/** The built-in OAuth 2.1 authorization server for AI-assistant connectors (issue 24). */
export const OAUTH_SERVER_OPTIONS: OptionSpec[] = [
  {
    name: "oauth-cimd",
    type: "bool",
    env: "VERBATIM_OAUTH_CIMD",
    default: "true",
    help: "Accept clients identified by a Client ID Metadata Document: an https client_id whose JSON is fetched through the egress guard (at most 5 KB, 5 s, cached up to its max-age, 1 h by default).",
  },
  {
    name: "oauth-dcr",
    type: "bool",
    env: "VERBATIM_OAUTH_DCR",
    default: "true",
    help: "Open POST /oauth/register (RFC 7591 dynamic client registration, public clients only, 10 an hour per address): for sites where the clients' metadata URLs cannot be fetched.",
  },
  {
    name: "oauth-access-ttl",
    type: "int",
    env: "VERBATIM_OAUTH_ACCESS_TTL",
    valueName: "SECONDS",
    help: "Lifetime in seconds of the access tokens the authorization server issues (60 to --token-max-ttl; default 3600, or --token-max-ttl when that is shorter); refresh tokens, rotated on every use, live 30 days.",
  },
];

export const SERVE_OPTIONS: OptionSpec[] = [
  CONFIG_OPTION,
  ROLE_OPTION,
  DATABASE_URL_OPTION,
  DATABASE_POOL_OPTION,
  { name: "host", type: "string", env: "VERBATIM_HOST", default: "127.0.0.1", help: "Address to listen on." },
  { name: "port", type: "int", env: "VERBATIM_PORT", default: "8080", help: "Port to listen on; 0 picks a free one and prints it." },
  DATA_DIR_OPTION,
  STORAGE_DIR_OPTION,
  {
    name: "models-dir",
    type: "string",
    env: "VERBATIM_MODELS_DIR",
    default: "./models",
    help: "Folder of the speech, diarization and language models.",
  },
  PUBLIC_URL_OPTION,
  {
    name: "trusted-proxy",
    type: "string",
    env: "VERBATIM_TRUSTED_PROXY",
    default: "",
    valueName: "address|cidr,...",
    help: "Reverse proxies whose forwarding header names the client (e.g. 127.0.0.1,::1 or 10.0.0.0/8): rate limits, sign-in throttles and sessions then count each client apart. Only these peers' header is believed; from anyone else it is ignored.",
  },
  {
    name: "trusted-proxy-header",
    type: "string",
    env: "VERBATIM_TRUSTED_PROXY_HEADER",
    default: "x-forwarded-for",
    valueName: "x-forwarded-for|forwarded",
    help: "The header the trusted proxies write the client's address in: x-forwarded-for (Caddy, nginx's $proxy_add_x_forwarded_for) or forwarded (RFC 7239). Only that one is read.",
  },
  {
    name: "sign-in-delay",
    type: "int",
    env: "VERBATIM_SIGN_IN_DELAY",
    default: "60",
    help: "Seconds a password sign-in waits after 5 failures for one email (in a day) or 20 from one client address (in an hour); each further failure doubles the wait, up to 15 minutes. Nobody is locked out: after the wait, the right password signs in.",
  },
  {
    name: "rate-limits",
    type: "string",
    env: "VERBATIM_RATE_LIMITS",
    default: "free=30,standard=60,pro=120,anonymous=30",
    valueName: "plan=n,...",
    help: "Requests per credential per sliding 60 s window, by plan; anonymous counts per client address.",
  },
  MAX_API_KEYS_OPTION,
  ...OAUTH_OPTIONS,
  ...OAUTH_SERVER_OPTIONS,
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
    name: "worker-env",
    type: "string",
    env: "VERBATIM_WORKER_ENV",
    default: "",
    valueName: "NAME,...",
    help: "Environment variables passed to the worker processes besides the built-in allowlist (PATH, HOME, LANG, LC_*, TZ, TMPDIR, LD_LIBRARY_PATH, CUDA_*, NVIDIA_*, GGML_*, HIP_*, ROCR_*, HSA_*, VK_*, OMP_*, NODE_LLAMA_CPP_*, NODE_EXTRA_CA_CERTS, SSL_CERT_*, VERBATIM_NATIVE_MODULES). Workers get nothing else of the service's environment; the service's own settings (VERBATIM_*) cannot be named.",
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
    help: "The least, in minor units, an admitted operation reserves of the balance until it ends, whatever its estimate (an audio_url before its download).",
  },
  {
    name: "llm-estimate-tokens",
    type: "int",
    env: "VERBATIM_LLM_ESTIMATE_TOKENS",
    default: "3000",
    help: "Tokens a report or document is expected to take beyond its transcript (instructions and answer), in the estimate reserved when it is admitted.",
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
    help: "Seconds between retention sweeps (expired idempotency keys, stale partial uploads, expired token revocations, idle drafts, the accounts' retention policies).",
  },
  {
    name: "idempotency-lease",
    type: "int",
    env: "VERBATIM_IDEMPOTENCY_LEASE",
    default: "120",
    help: "Seconds after which an Idempotency-Key held by a request that stopped beating (its node died mid-upload) is taken over by the client's retry, through any node; a running request refreshes its key every quarter of this.",
  },
  {
    name: "max-open-drafts",
    type: "int",
    env: "VERBATIM_MAX_OPEN_DRAFTS",
    default: "10",
    help: "Drafts (web app recordings and resumable uploads not yet finished) one account may keep open at once; another is refused until one is finished or deleted.",
  },
  {
    name: "max-draft-bytes",
    type: "int",
    env: "VERBATIM_MAX_DRAFT_BYTES",
    default: "5000000000",
    help: "Bytes the parts of one account's open drafts may hold together (default 5 GB: two recordings at the 2 GB limit and room to spare); a part past it is refused.",
  },
  {
    name: "draft-idle-days",
    type: "int",
    env: "VERBATIM_DRAFT_IDLE_DAYS",
    default: "7",
    help: "Days a draft may go untouched (no part received) before the retention sweep deletes it like a meeting; its page says when.",
  },
  {
    name: "audit-retention-days",
    type: "int",
    env: "VERBATIM_AUDIT_RETENTION_DAYS",
    default: "400",
    help: "Days the audit trail keeps an entry (who read or changed what, sign-ins, keys); the retention sweep deletes older ones, and nothing else can. At least 1.",
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

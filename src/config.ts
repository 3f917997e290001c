import { NODE_ROLES, type NodeRole } from "./nodes/table.ts";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { BuiltinEngineSettings } from "./engines/builtin.ts";
import type { OAuthSettings } from "./auth/access-tokens.ts";
import { jwksUrlRefusal } from "./auth/idp-keys.ts";
import type { SsoSettings } from "./auth/oidc-sign-in.ts";
import { UsageError, type OptionValues } from "./cli/options.ts";
import { SERVE_OPTIONS, storageDirOf } from "./config-options.ts";
import { DEFAULT_BODY_PACE, type BodyPace } from "./lib/body-deadline.ts";
import type { RateLimits } from "./http/pipeline.ts";
import { DEFAULT_BILLING, type BillingSettings } from "./usage/settings.ts";
import { MODEL_PROFILES, selectModels, type ModelProfile } from "./models/selection.ts";
import { DEFAULT_PARALLEL_SLOTS, type ParallelSlots } from "./jobs/slots.ts";
import { parseEgressAllow, type EgressPolicy } from "./net/egress.ts";
import { parseTrustedProxies, type TrustedProxies } from "./http/client-address.ts";
import type { DraftLimits } from "./meetings/draft-limits.ts";

/** `iss` of the access tokens the service mints itself (admin token create). */
export const LOCAL_TOKEN_ISSUER = "verbatim-local";

export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL (issue 22) instead of the data dir's SQLite file, with its pool size. */
  database?: DatabaseSettings;
  /** api: HTTP and the web app only; worker: job steps only; all: both (the appliance). */
  role: NodeRole;
  /** Where meetings' files live (--storage-dir): the data dir unless set; shared by every node. */
  storageDir: string;
  modelsDir: string;
  publicUrl: string | undefined;
  rateLimits: RateLimits;
  /** Active API keys one account may hold (--max-api-keys). */
  maxApiKeys: number;
  oauth: OAuthSettings;
  /** The built-in authorization server (issue 24): which client identifications, token lifetime. */
  oauthServer: { cimd: boolean; dcr: boolean; accessTtlSeconds: number };
  ffmpegPath: string;
  egress: EgressPolicy;
  egressAllowText: string;
  workers: number;
  /** Further environment variables the workers get (--worker-env), besides the allowlist. */
  workerEnv: string[];
  parallelSlots: ParallelSlots;
  stageTimeoutSeconds: number;
  downloadTimeoutSeconds: number;
  engines: string;
  engineSettings: BuiltinEngineSettings;
  logRequests: boolean;
  maxDurationSeconds: number;
  sweepIntervalSeconds: number;
  /** How long a key in progress outlives its request's last heartbeat (idempotency/store.ts). */
  idempotencyLeaseSeconds: number;
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
  /** What one account's drafts may hold, and how long an untouched draft is kept. */
  drafts: DraftLimits;
  /** How long the audit trail keeps an entry (ms). */
  auditRetentionMs: number;
  /** Reverse proxies whose forwarding header names the client, or null: the TCP peer is the client. */
  trustedProxies: TrustedProxies | null;
  /** The first delay of password sign-in after repeated failures (ms); it doubles with each further one. */
  signInDelayMs: number;
}

function trustedProxies(values: OptionValues): TrustedProxies | null {
  const header = values["trusted-proxy-header"] as string;
  if (header !== "x-forwarded-for" && header !== "forwarded") throw new UsageError(`--trusted-proxy-header must be x-forwarded-for or forwarded, got ${header}`);
  try {
    const networks = parseTrustedProxies(values["trusted-proxy"] as string);
    return networks.length ? { networks, header } : null;
  } catch (error) {
    throw new UsageError(`--trusted-proxy: ${(error as Error).message}`);
  }
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

/** An hour, the usual access token lifetime, unless --token-max-ttl is shorter. */
const DEFAULT_OAUTH_ACCESS_TTL_SECONDS = 3600;

/**
 * --oauth-cimd, --oauth-dcr, --oauth-access-ttl (at least a minute, at most --token-max-ttl: the
 * authenticator refuses longer). Left unset, an hour or --token-max-ttl, whichever is shorter, so
 * an operator who shortens --token-max-ttl need not set this as well; set above it, it is an error.
 */
export function oauthServerSettings(values: OptionValues): ServiceConfig["oauthServer"] {
  const max = tokenMaxTtl(values);
  const accessTtlSeconds = (values["oauth-access-ttl"] as number | undefined) ?? Math.min(DEFAULT_OAUTH_ACCESS_TTL_SECONDS, max);
  if (accessTtlSeconds < 60 || accessTtlSeconds > max) throw new UsageError(`--oauth-access-ttl must be 60 to ${max} seconds (--token-max-ttl)`);
  return { cimd: values["oauth-cimd"] as boolean, dcr: values["oauth-dcr"] as boolean, accessTtlSeconds };
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
    estimates: { reportTokens: Math.max(0, Number(values["llm-estimate-tokens"])) },
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

/**
 * --worker-env: variable names, none of the service's own settings (the environment variables of
 * its options hold its secrets: the SSO client secret, the SMTP URL, the metrics token) nor its
 * internal ones.
 */
function workerEnvNames(text: string): string[] {
  const own = new Set(SERVE_OPTIONS.map((option) => option.env).filter(Boolean));
  const names = text.split(",").map((name) => name.trim()).filter(Boolean);
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--worker-env: not an environment variable name: ${JSON.stringify(name)}`);
    if (own.has(name) || name.startsWith("VERBATIM_INTERNAL_")) throw new UsageError(`--worker-env: ${name} is a setting of the service itself, never passed to workers`);
  }
  return names;
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

export interface DatabaseSettings {
  url: string;
  poolSize: number;
}

/** --database-url and its pool, checked: a postgres:// or postgresql:// URL. */
export function databaseSettings(values: OptionValues): DatabaseSettings | undefined {
  const url = values["database-url"] as string | undefined;
  if (url === undefined || url === "") return undefined;
  let protocol = "";
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new UsageError("--database-url is not a URL (postgres://user:password@host:5432/db)");
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") throw new UsageError("--database-url must be a postgres:// or postgresql:// URL");
  const poolSize = (values["database-pool-size"] as number | undefined) ?? 10;
  if (poolSize < 1) throw new UsageError("--database-pool-size must be at least 1");
  return { url, poolSize };
}

/** --role, checked: api and worker nodes share a PostgreSQL database, so they need --database-url. */
export function roleOf(values: OptionValues): NodeRole {
  const role = values.role as string;
  if (!(NODE_ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be api, worker or all, got ${role}`);
  if (role !== "all" && !values["database-url"]) {
    throw new UsageError(`--role ${role} runs one part of a cluster that shares a PostgreSQL database: give --database-url (on SQLite, one process serves everything: --role all)`);
  }
  return role as NodeRole;
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
    database: databaseSettings(values),
    role: roleOf(values),
    storageDir: resolve(storageDirOf(values)),
    modelsDir: resolve(values["models-dir"] as string),
    publicUrl: publicUrl?.replace(/\/+$/, ""),
    rateLimits: parseRateLimits(values["rate-limits"] as string),
    maxApiKeys: atLeastOne(values, "max-api-keys"),
    oauth: oauthSettings(values, egressPolicy(values["egress-allow"] as string)),
    oauthServer: oauthServerSettings(values),
    ffmpegPath: values.ffmpeg as string,
    egress: egressPolicy(values["egress-allow"] as string),
    egressAllowText: values["egress-allow"] as string,
    workers: atLeastOne(values, "workers"),
    workerEnv: workerEnvNames(values["worker-env"] as string),
    parallelSlots: parsePlanNumbers("parallel-slots", values["parallel-slots"] as string, DEFAULT_PARALLEL_SLOTS),
    stageTimeoutSeconds: atLeastOne(values, "stage-timeout"),
    downloadTimeoutSeconds: atLeastOne(values, "download-timeout"),
    maxDurationSeconds: atLeastOne(values, "max-duration"),
    sweepIntervalSeconds: atLeastOne(values, "sweep-interval"),
    idempotencyLeaseSeconds: atLeastOne(values, "idempotency-lease"),
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
    trustedProxies: trustedProxies(values),
    signInDelayMs: atLeastOne(values, "sign-in-delay") * 1000,
    drafts: {
      maxOpen: atLeastOne(values, "max-open-drafts"),
      maxBytes: atLeastOne(values, "max-draft-bytes"),
      idleMs: atLeastOne(values, "draft-idle-days") * 24 * 3600 * 1000,
    },
    auditRetentionMs: atLeastOne(values, "audit-retention-days") * 24 * 3600 * 1000,
  };
}

/**
 * The environment of the processes the service starts (workers, and ffmpeg from them), built from
 * an allowlist rather than the service's own environment minus known secrets: the service's
 * environment holds the SSO client secret, the SMTP URL with its password, the metrics token and
 * whatever else the operator's unit file sets, and a denylist misses the one nobody thought of.
 * A worker runs decoders over untrusted recordings; what it never holds, it cannot leak.
 */

/** Names passed as they are: the system's basics, TLS trust, native library lookup. */
const NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CACHE_HOME",
  "LD_LIBRARY_PATH",
  // Outbound TLS trust for audio_url downloads (net/trust.ts reads NODE_EXTRA_CA_CERTS).
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Where the compiled executable finds the native engine packages (engines/native.ts).
  "VERBATIM_NATIVE_MODULES",
]);

/** Prefixes of the locale, of GPU runtimes and of the engines' own tuning variables. */
const PREFIXES = ["LC_", "CUDA_", "NVIDIA_", "GGML_", "HIP_", "ROCR_", "HSA_", "VK_", "OMP_", "NODE_LLAMA_CPP_"];

export function isAllowlisted(name: string): boolean {
  return NAMES.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * The allowlisted variables of `source`, plus the `extraNames` the operator chose to pass
 * (--worker-env) and the `own` variables the service sets for the child (its configuration).
 */
export function childEnvironment(
  source: Record<string, string | undefined>,
  extraNames: readonly string[] = [],
  own: Record<string, string> = {},
): Record<string, string> {
  const extra = new Set(extraNames);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && (isAllowlisted(name) || extra.has(name))) env[name] = value;
  }
  return { ...env, ...own };
}

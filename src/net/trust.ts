import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";

/**
 * The certificates outbound TLS trusts when the operator gives a CA bundle (--ca-file): the
 * system's roots, NODE_EXTRA_CA_CERTS's file when set, and the bundle, since on-premises
 * receivers often use an internal CA. Without a bundle, undefined: the runtime's defaults (system
 * roots plus NODE_EXTRA_CA_CERTS) apply. There is never an option to skip verification.
 */
export function trustedCertificates(caFile: string | null, env: Record<string, string | undefined> = process.env): string | undefined {
  if (!caFile) return undefined;
  const bundle = readFileSync(caFile, "utf8");
  if (!bundle.includes("-----BEGIN CERTIFICATE-----")) throw new Error(`--ca-file: ${caFile} holds no PEM certificate`);
  const extra = env.NODE_EXTRA_CA_CERTS ? readFileSync(env.NODE_EXTRA_CA_CERTS, "utf8") : "";
  return [...rootCertificates, extra, bundle].filter(Boolean).join("\n");
}

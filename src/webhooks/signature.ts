import { createHmac } from "node:crypto";

/**
 * The Verbatim-Signature header (SPEC 6): t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">,
 * one v1 per secret that signs (two during the 24 hours after a rotation). The key is the whole
 * secret, whsec_ prefix included.
 */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, body: string): string {
  const signed = `${timestampSeconds}.${body}`;
  const values = secrets.map((secret) => `v1=${createHmac("sha256", secret).update(signed).digest("hex")}`);
  return [`t=${timestampSeconds}`, ...values].join(",");
}

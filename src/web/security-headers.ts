/**
 * Headers on every web app response. The Content-Security-Policy allows nothing from elsewhere:
 * scripts, styles, fonts, media and connections come from this origin only (air-gapped sites have
 * no CDN, and an injected tag cannot load or send anything), no inline script, no framing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function securityHeaders(): Record<string, string> {
  return {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    // Pages show a firm's meetings: never kept by a shared cache or the browser's back-forward store.
    "cache-control": "no-store",
  };
}

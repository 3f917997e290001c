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

/**
 * The consent page's headers (issue 24): the same policy, except that its form may also lead to
 * the client's redirect URI. Browsers apply form-action to the redirects that follow a form's
 * submission, and the decision's answer is a 303 to that URI; only its origin (an http(s) URI) or
 * its scheme (an app's private-use scheme, RFC 8252) is added, never a wildcard.
 */
export function consentSecurityHeaders(redirectUri: string): Record<string, string> {
  const url = new URL(redirectUri);
  const source = url.protocol === "https:" || url.protocol === "http:" ? url.origin : url.protocol;
  // A source with a space, a comma or a semicolon would change the policy's meaning: none can come
  // from URL's serialisation, and the check keeps it so.
  const form = /^[A-Za-z0-9+.\-:/[\]]+$/.test(source) ? `form-action 'self' ${source}` : "form-action 'self'";
  return { "content-security-policy": CONTENT_SECURITY_POLICY.replace("form-action 'self'", form) };
}

/** The rules for redirect URIs (RFC 8252, OAuth 2.1 section 2.3.1 and 4.1.3): shape and matching. */

export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** A private-use scheme (RFC 8252 7.1): reverse domain name, so it holds a dot (com.example.app). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+\-]*(\.[a-z0-9+\-]+)+:$/;

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Why a redirect URI cannot be registered, or null: https, http to a loopback address, or a
 * private-use scheme; an absolute URI without fragment or user info, at most 2,000 characters.
 */
export function redirectUriRefusal(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `a redirect URI is at most ${MAX_URI_LENGTH} characters`;
  if (!URL.canParse(uri)) return `not an absolute URI: ${uri.slice(0, 200)}`;
  const url = new URL(uri);
  if (url.hash !== "" || uri.includes("#")) return "a redirect URI has no fragment";
  if (url.username !== "" || url.password !== "") return "a redirect URI has no user information";
  if (url.protocol === "https:") return url.hostname ? null : "an https redirect URI names a host";
  if (url.protocol === "http:") return isLoopbackHttp(url) ? null : "http redirect URIs are allowed to loopback addresses only (127.0.0.1, [::1], localhost); use https";
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return null;
  return `the scheme ${url.protocol} is not allowed (https, http to a loopback address, or a private-use scheme such as com.example.app:)`;
}

/**
 * Whether the requested redirect URI is one the client registered: the same string, or (RFC 8252
 * 7.3) an http loopback URI that differs from a registered one in its port only.
 */
export function redirectUriMatches(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested)) return false;
  const asked = new URL(requested);
  if (!isLoopbackHttp(asked)) return false;
  return registered.some((uri) => {
    if (!URL.canParse(uri)) return false;
    const known = new URL(uri);
    return isLoopbackHttp(known) && known.hostname === asked.hostname && known.pathname === asked.pathname && known.search === asked.search && !requested.includes("#");
  });
}

/** The URI with parameters added to its query (those it had are kept, as RFC 6749 3.1.2 says). */
export function withQuery(uri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}

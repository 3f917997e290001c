import { render } from "preact-render-to-string";
import type { VNode } from "preact";
import { xmlSafeText } from "../lib/xml-text.ts";
import { contentDisposition } from "./file-names.ts";
import { securityHeaders } from "./security-headers.ts";

/** A web app response: the security headers on every one, and any cookies to set. */
export function respond(body: BodyInit | null, status: number, headers: Record<string, string>, cookies: string[] = []): Response {
  const all = new Headers({ ...securityHeaders(), ...headers });
  for (const cookie of cookies) all.append("set-cookie", cookie);
  return new Response(body, { status, headers: all });
}

export function html(page: VNode, status = 200, cookies: string[] = [], headers: Record<string, string> = {}): Response {
  // Every value a page shows passes here: none carries a character XML forbids (lib/xml-text.ts).
  return respond(`<!doctype html>${xmlSafeText(render(page))}`, status, { "content-type": "text/html; charset=utf-8", ...headers }, cookies);
}

/** JSON for the web app's own scripts (progress, drafts, the inline editor): never cached. */
export function json(body: unknown, status = 200): Response {
  return respond(JSON.stringify(body), status, { "content-type": "application/json", "cache-control": "no-store" });
}

export function redirect(location: string, cookies: string[] = []): Response {
  return respond(null, 303, { location }, cookies);
}

/**
 * A file to save, never shown in place: its name is the meeting's date and title (file-names.ts),
 * cleaned, never the client's upload name.
 * A text file (transcript, report, export) holds no character XML forbids (lib/xml-text.ts).
 */
export function download(body: BodyInit, contentType: string, fileName: string, disposition: "attachment" | "inline" = "attachment"): Response {
  return respond(typeof body === "string" ? xmlSafeText(body) : body, 200, { "content-type": contentType, "content-disposition": contentDisposition(disposition, fileName), "cache-control": "private, no-store" });
}

export function cookie(request: Request, name: string): string | undefined {
  return new Bun.CookieMap(request.headers.get("cookie") ?? "").get(name) ?? undefined;
}

/**
 * The origins this site is reached at: the address the request came to, and the configured public
 * URL (behind a TLS-terminating proxy the browser's https origin is only that one).
 */
function siteOrigins(request: Request, publicUrl: string): string[] {
  const origins = [new URL(request.url).origin];
  if (URL.canParse(publicUrl)) origins.push(new URL(publicUrl).origin);
  return origins;
}

/** Cookies are Secure when the browser reaches the site over https, directly or through the proxy. */
export function setCookie(request: Request, publicUrl: string, name: string, value: string, maxAgeSeconds: number, sameSite: "lax" | "strict"): string {
  const secure = siteOrigins(request, publicUrl).some((origin) => origin.startsWith("https:"));
  return new Bun.Cookie(name, value, { path: "/", httpOnly: true, sameSite, secure, maxAge: maxAgeSeconds }).serialize();
}

/** `origin` (a URL's origin: a Referer's, an Origin header's) is this site's. */
export function isSiteOrigin(request: Request, publicUrl: string, origin: string): boolean {
  return siteOrigins(request, publicUrl).includes(origin);
}

/** A browser's Origin header, when sent, names this site. */
export function sameOrigin(request: Request, publicUrl: string): boolean {
  const origin = request.headers.get("origin");
  return origin === null || siteOrigins(request, publicUrl).includes(origin);
}

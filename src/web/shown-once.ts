import { randomBase62 } from "../lib/ids.ts";
import { bindingOf, pageCookie } from "./form-state.ts";
import { cookie, redirect } from "./http.ts";

/**
 * A secret made by a form (a new API key, a webhook signing secret, a sign-in link) shown ONCE,
 * on the page the form redirects to (post/redirect/get: a reload neither makes a second one nor
 * shows this one again). The whole API:
 *
 *   return redirectShowingOnce(request, "/settings/developers", { name, key });   // in the POST
 *   const shown = takeShownOnce(request);                                         // in the GET: once, else null
 *
 * The secret never leaves this process but in that page: it is held here, in memory, for
 * SHOWN_ONCE_TTL_S, under a random id that the browser carries in a cookie (HttpOnly,
 * SameSite=Strict, Path = the page), bound to the session that made it, and forgotten when read.
 * It is never in a URL, a log line or a cookie. With several instances, a redirect that lands on
 * another process finds nothing: the page says the secret cannot be shown again (revoke it and
 * make another). docs/decisions.md says why this over a sealed cookie.
 */
export const SHOWN_ONCE_COOKIE = "verbatim_shown_once";
export const SHOWN_ONCE_TTL_S = 120;
const MAX_HELD = 10_000;

interface Held {
  binding: string;
  path: string;
  until: number;
  value: Record<string, string>;
}

const held = new Map<string, Held>();
const taken = new WeakMap<Request, { path: string; value: Record<string, string> | null }>();

/** A 303 to `location` whose page shows `value` once; `cookies` are set along with it. */
export function redirectShowingOnce(request: Request, location: string, value: Record<string, string>, cookies: string[] = []): Response {
  const now = Date.now();
  if (held.size >= MAX_HELD) {
    for (const [id, entry] of held) if (entry.until < now) held.delete(id);
    for (const id of held.keys()) {
      if (held.size < MAX_HELD) break;
      held.delete(id);
    }
  }
  const id = randomBase62(32);
  const path = new URL(location, "http://site").pathname;
  held.set(id, { binding: bindingOf(request), path, until: now + SHOWN_ONCE_TTL_S * 1000, value });
  return redirect(location, [...cookies, onceCookie(request, id, path, SHOWN_ONCE_TTL_S)]);
}

/**
 * What a form left to show on this page (a GET), once; null when nothing, or nothing any more
 * (read already, expired, another session's, another instance's). `gone` is true when the browser
 * was sent here to see a secret that can no longer be shown.
 */
export function takeShownOnce(request: Request): { value: Record<string, string> | null; gone: boolean } {
  const already = taken.get(request);
  if (already) return { value: already.value, gone: false };
  const id = request.method === "GET" ? cookie(request, SHOWN_ONCE_COOKIE) : undefined;
  if (!id) return { value: null, gone: false };
  const path = new URL(request.url).pathname;
  const entry = held.get(id);
  if (entry && entry.path !== path) return { value: null, gone: false };
  held.delete(id);
  const value = entry && entry.until >= Date.now() && entry.binding === bindingOf(request) ? entry.value : null;
  taken.set(request, { path, value });
  return { value, gone: value === null };
}

/** The Set-Cookie that clears the id a page took (none when it took none): added to the page by createWebApp. */
export function shownOnceCleared(request: Request): string[] {
  const entry = taken.get(request);
  return entry ? [onceCookie(request, "", entry.path, 0)] : [];
}

function onceCookie(request: Request, value: string, path: string, maxAge: number): string {
  return pageCookie(request, SHOWN_ONCE_COOKIE, value, path, maxAge, "strict");
}

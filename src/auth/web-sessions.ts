import type { Locale, Role, User } from "./users.ts";

// A web app session: how long it lives and what it carries. The sessions table is read and written
// by auth/web-session-store.ts.

/** A session unused this long ends (ms). */
export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
/** No session lives longer than this, however active (ms). */
export const SESSION_MAX_MS = 30 * 24 * 3600_000;

export interface WebSession {
  user: User;
  /** The user's chosen language for the web app, or null (then the browser's). */
  locale: Locale | null;
  /** The user's role: an admin's pages show the administration console's link (the console checks again). */
  role: Role;
  csrfToken: string;
  tokenHash: string;
  /** The request's client address (through the trusted proxy), set per request by the web app (web/kit.ts) for the audit trail. */
  clientAddress?: () => string | null;
}

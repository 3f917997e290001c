import type { Elysia } from "elysia";
import icon from "./assets/favicon.svg" with { type: "text" };
import { respond } from "./http.ts";

/**
 * The app's icon (issue 25 item 9): an SVG served from this origin, linked from every page. Its
 * path carries a hash of its content, so it may be cached as immutable: a changed icon is a new path.
 */
export const FAVICON_PATH = `/assets/favicon-${Bun.hash(icon).toString(36)}.svg`;

export function faviconRoute(app: Elysia): void {
  app.get(FAVICON_PATH, () => respond(icon, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=31536000, immutable" }));
}

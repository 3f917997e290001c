import { expect, test } from "bun:test";
import { afterSignIn, isWebPath } from "./routes.tsx";

test("isWebPath: the web app's pages and assets, and any path that is not the API's (its HTML 404); the API's paths are the API's", () => {
  for (const path of ["/", "/login", "/login/sso/callback", "/logout", "/meetings", "/meetings/new", "/record", "/settings/usage", "/assets/app.js", "/oauth/authorize", "/oauth/authorize/decision"]) expect(isWebPath(path)).toBe(true);
  // Issue 25: an unknown path is answered by the web app's 404 page, not the API's JSON.
  for (const path of ["/loginx", "/meetingsx", "/recording", "/settingsfoo", "/favicon.ico", "/nope/deeper", "/apix", "/docsx"]) expect(isWebPath(path)).toBe(true);
  for (const path of ["/api/v1/me", "/api/meetings", "/api", "/docs", "/docs/api/errors", "/healthz", "/readyz", "/metrics", "/.well-known/oauth-authorization-server", "/oauth/token", "/oauth/register", "/oauth/revoke", "/mcp"]) expect(isWebPath(path)).toBe(false);
});

test("afterSignIn keeps only paths of the app's pages", () => {
  expect(afterSignIn("/meetings/abc?notice=saved")).toBe("/meetings/abc?notice=saved");
  for (const next of [null, "", "//evil.example", "https://evil.example", "/\\evil", "/api/v1/me", "/login", "/logout", "/assets/app.js", "/"]) expect(afterSignIn(next)).toBe("/meetings");
});

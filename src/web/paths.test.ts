import { expect, test } from "bun:test";
import { afterSignIn, isWebPath } from "./routes.tsx";

test("isWebPath: the web app's pages and assets; the API and anything else are the API's", () => {
  for (const path of ["/", "/login", "/login/sso/callback", "/logout", "/meetings", "/meetings/new", "/record", "/settings/usage", "/assets/app.js"]) expect(isWebPath(path)).toBe(true);
  for (const path of ["/api/v1/me", "/api/meetings", "/docs", "/healthz", "/metrics", "/loginx", "/meetingsx", "/recording", "/settingsfoo"]) expect(isWebPath(path)).toBe(false);
});

test("afterSignIn keeps only paths of the app's pages", () => {
  expect(afterSignIn("/meetings/abc?notice=saved")).toBe("/meetings/abc?notice=saved");
  for (const next of [null, "", "//evil.example", "https://evil.example", "/\\evil", "/api/v1/me", "/login", "/logout", "/assets/app.js", "/"]) expect(afterSignIn(next)).toBe("/meetings");
});

import { expect, test } from "bun:test";
import { SCOPES } from "../auth/app.ts";
import { translator } from "./i18n.ts";
import { clientHost, MAX_AUTHORIZE_REQUEST_CHARS } from "./oauth-routes.tsx";
import { scopeSentenceKey } from "./pages/oauth-consent.tsx";
import { afterSignIn, isWebPath } from "./routes.tsx";
import { consentSecurityHeaders, CONTENT_SECURITY_POLICY } from "./security-headers.ts";

test("the authorization endpoint and its decision are the web app's; the token, registration and revocation endpoints are not", () => {
  for (const path of ["/oauth/authorize", "/oauth/authorize/decision"]) expect(isWebPath(path)).toBe(true);
  for (const path of ["/oauth/token", "/oauth/register", "/oauth/revoke", "/oauth/authorizex", "/.well-known/oauth-authorization-server"]) expect(isWebPath(path)).toBe(false);
});

test("afterSignIn keeps a long authorization request, up to its bound, and nothing longer", () => {
  const request = `/oauth/authorize?client_id=${encodeURIComponent("https://app.example/client.json")}&state=${"s".repeat(1500)}`;
  expect(afterSignIn(request)).toBe(request);
  expect(afterSignIn(`/oauth/authorize?state=${"s".repeat(MAX_AUTHORIZE_REQUEST_CHARS)}`)).toBe("/meetings");
  // Other pages keep their shorter bound.
  expect(afterSignIn(`/meetings?q=${"s".repeat(600)}`)).toBe("/meetings");
  for (const next of ["//evil.example/oauth/authorize?x=1", "/oauth/token?x=1", "/oauth/authorize\\evil"]) expect(afterSignIn(next)).toBe("/meetings");
});

test("the consent page's policy adds only the redirect URI's origin, or an app's scheme, to form-action", () => {
  const policy = (uri: string) => consentSecurityHeaders(uri)["content-security-policy"]!;
  expect(policy("http://127.0.0.1:53117/callback?x=1")).toBe(CONTENT_SECURITY_POLICY.replace("form-action 'self'", "form-action 'self' http://127.0.0.1:53117"));
  expect(policy("https://claude.ai/api/mcp/auth_callback")).toContain("form-action 'self' https://claude.ai;");
  expect(policy("https://[::1]:8443/cb")).toContain("form-action 'self' https://[::1]:8443;");
  expect(policy("com.example.app:/oauth/callback")).toContain("form-action 'self' com.example.app:;");
  for (const directive of ["frame-ancestors 'none'", "default-src 'none'", "script-src 'self'"]) expect(policy("https://claude.ai/cb")).toContain(directive);
});

test("Connected apps names the host of an app's metadata document; a self-registered app has none", () => {
  expect(clientHost("https://claude.ai/oauth/client-metadata.json")).toBe("claude.ai");
  expect(clientHost("https://apps.firm.example:8443/agent.json")).toBe("apps.firm.example:8443");
  for (const id of ["ocl_3kTq9vX2", "http://127.0.0.1/client.json", "not a url"]) expect(clientHost(id)).toBeNull();
});

test("every scope has a sentence in English and in French, and no two say the same", () => {
  for (const locale of ["en", "fr"] as const) {
    const t = translator(locale);
    const sentences = SCOPES.map((scope) => t(scopeSentenceKey(scope)));
    for (const sentence of sentences) expect(sentence).toMatch(/^\p{Lu}.{15,}\.$/u);
    expect(new Set(sentences).size).toBe(SCOPES.length);
  }
});

import { expect, test } from "bun:test";
import { redirectUriMatches, redirectUriRefusal, withQuery } from "./redirect-uris.ts";

test("registrable redirect URIs: https, loopback http, private-use schemes", () => {
  for (const ok of ["https://app.example/cb", "http://127.0.0.1/cb", "http://[::1]:8080/cb", "http://localhost:3000/callback", "com.example.app:/oauth2redirect"]) {
    expect(redirectUriRefusal(ok)).toBeNull();
  }
  expect(redirectUriRefusal("http://app.example/cb")).toContain("loopback");
  expect(redirectUriRefusal("https://app.example/cb#frag")).toContain("fragment");
  expect(redirectUriRefusal("https://user:pw@app.example/cb")).toContain("user information");
  expect(redirectUriRefusal("javascript:alert(1)")).toContain("not allowed");
  expect(redirectUriRefusal("myapp:/cb")).toContain("not allowed");
  expect(redirectUriRefusal("not a uri")).toContain("absolute");
  expect(redirectUriRefusal(`https://app.example/${"a".repeat(2000)}`)).toContain("2000");
});

test("matching is exact, except the port of a loopback http URI (RFC 8252 7.3)", () => {
  const registered = ["https://app.example/cb", "http://127.0.0.1/callback"];
  expect(redirectUriMatches("https://app.example/cb", registered)).toBe(true);
  expect(redirectUriMatches("https://app.example/cb/", registered)).toBe(false);
  expect(redirectUriMatches("https://app.example/cb?x=1", registered)).toBe(false);
  expect(redirectUriMatches("https://app.example:444/cb", registered)).toBe(false);
  expect(redirectUriMatches("https://APP.example/cb", registered)).toBe(false);
  expect(redirectUriMatches("http://127.0.0.1:53117/callback", registered)).toBe(true);
  expect(redirectUriMatches("http://127.0.0.1:53117/other", registered)).toBe(false);
  expect(redirectUriMatches("http://localhost:53117/callback", registered)).toBe(false);
  expect(redirectUriMatches("http://127.0.0.1:53117/callback#x", registered)).toBe(false);
  expect(redirectUriMatches("https://127.0.0.1:53117/callback", registered)).toBe(false);
  // A registered https URI never matches another port.
  expect(redirectUriMatches("https://app.example:8443/cb", ["https://app.example/cb"])).toBe(false);
});

test("parameters are added to the URI's own query, which is kept", () => {
  expect(withQuery("https://app.example/cb?keep=1", { code: "c", state: "s t", iss: "https://v.example", skipped: undefined })).toBe(
    "https://app.example/cb?keep=1&code=c&state=s+t&iss=https%3A%2F%2Fv.example",
  );
});

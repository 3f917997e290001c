// Hostile bodies on the web app's forms (issue 14): one too large and one that never ends are
// refused within their bounds with an HTML page under the same security headers, and nobody is signed in.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startServer, type TestServer } from "../helpers/server.ts";
import { stalledRequest } from "../helpers/stalled-request.ts";
import { MAX_FORM_BYTES } from "../../src/web/form-body.ts";

setDefaultTimeout(20_000);
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ args: ["--body-idle-timeout", "1"] });
  await server.admin("user", "create", "--email", "partner@firm.example", "--password", "correct horse battery");
});
afterAll(() => server.stop());

test("a sign-in form over 64 KiB is 413, an HTML page with the CSP, and no session cookie", async () => {
  const body = `email=partner%40firm.example&password=${"a".repeat(MAX_FORM_BYTES)}`;
  const response = await fetch(`${server.url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  expect(response.status).toBe(413);
  expect(response.headers.get("content-type")).toContain("text/html");
  expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
  expect(response.headers.getSetCookie().some((c) => c.startsWith("verbatim_session="))).toBe(false);
  const page = await response.text();
  expect(page).toContain(`The request body is larger than ${MAX_FORM_BYTES} bytes.`);
  expect(page).not.toContain(server.dataDir);
});

test("a sign-in form whose body never ends is cut off with 408 after the idle timeout", async () => {
  const { reply, afterMs } = await stalledRequest(
    server.url,
    "POST /login HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n",
    "email=partner%40firm.example&password=corr",
    (text) => text.includes("</html>"),
  );
  expect(reply).toStartWith("HTTP/1.1 408");
  expect(reply).toContain("text/html");
  expect(reply).not.toContain("verbatim_session=");
  expect(afterMs).toBeLessThan(5000);
});

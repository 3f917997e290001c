// Built-in TLS (--tls-cert, --tls-key; issue 13): the service serves HTTPS with the given
// certificate, and refuses half a configuration at start.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, runCli, startServer } from "../helpers/server.ts";
import { LOOPBACK_CA } from "../support/webhook-receiver.ts";

const TLS = join(ROOT, "test", "fixtures", "tls");

test("with --tls-cert and --tls-key the API answers over HTTPS with that certificate", async () => {
  const server = await startServer({ args: ["--tls-cert", join(TLS, "loopback.cert.pem"), "--tls-key", join(TLS, "loopback.key.pem")] });
  try {
    expect(server.url).toStartWith("https://127.0.0.1:");
    const response = await fetch(`${server.url}/api/v1/me`, { headers: { Authorization: `Bearer ${server.adminKey}` }, tls: { ca: LOOPBACK_CA } });
    expect(response.status).toBe(200);
    // HSTS on every response of the https origin: API, a problem, the web app, the health probe.
    expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000");
    for (const path of ["/api/v1/meetings/nope", "/login", "/healthz", "/api/v1/no-such-path"]) {
      const other = await fetch(`${server.url}${path}`, { tls: { ca: LOOPBACK_CA }, redirect: "manual" });
      expect({ path, hsts: other.headers.get("strict-transport-security") }).toEqual({ path, hsts: "max-age=31536000" });
    }
    // A client that does not trust the certificate is refused by its own TLS check.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  } finally {
    await server.stop();
  }
});

test("over plain http (a reverse proxy in front) no Strict-Transport-Security is sent", async () => {
  const server = await startServer();
  try {
    for (const path of ["/api/v1/me", "/login", "/healthz"]) {
      const response = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${server.adminKey}` }, redirect: "manual" });
      expect(response.headers.get("strict-transport-security")).toBeNull();
    }
  } finally {
    await server.stop();
  }
});

test("one of the two without the other, or a missing file, stops the start naming the option", async () => {
  const half = await runCli(["config", "print", "--tls-cert", join(TLS, "loopback.cert.pem")]);
  expect(half.code).toBe(2);
  expect(half.stderr).toContain("--tls-cert and --tls-key go together");
  const missing = await runCli(["config", "print", "--tls-cert", "/nonexistent.pem", "--tls-key", join(TLS, "loopback.key.pem")]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("--tls-cert: no such file");
});

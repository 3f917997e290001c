/**
 * egressFetch connects only to the address checkEgress approved. All traffic
 * stays on loopback: the policy allows 127.0.0.2 (the "legit" servers) and not
 * 127.0.0.1 / ::1 (the "internal" servers, on the same port numbers), and an
 * injected resolver stands in for DNS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { SignJWT, createRemoteJWKSet, customFetch, exportJWK, generateKeyPair, jwtVerify } from "jose";
import { EgressRefused, type Resolver, parseEgressAllow } from "./egress.ts";
import { EgressConnectionFailed, EgressRedirectRefused, egressFetch, guardedFetch } from "./egress-fetch.ts";

const fixtures = join(import.meta.dir, "../../test/fixtures/tls");
const cert = readFileSync(join(fixtures, "legit.test.cert.pem"), "utf8");
const key = readFileSync(join(fixtures, "legit.test.key.pem"), "utf8");

const policy = parseEgressAllow("127.0.0.2");

interface Seen {
  host: string | undefined;
  path: string | undefined;
  sni: string | undefined;
}
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
/** Requests each server saw, by label. */
const seen: Record<string, Seen[]> = { legit: [], legitTls: [], internal: [], internal6: [], internalTls: [], proxy: [] };

function listen(server: Server, label: string, host: string, port: number, handler: Handler): Promise<number> {
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    seen[label]!.push({ host: req.headers.host, path: req.url, sni: (req.socket as TLSSocket).servername || undefined });
    handler(req, res);
  });
  // A proxy is asked to CONNECT for https: record it and refuse.
  server.on("connect", (req: IncomingMessage, socket: import("node:net").Socket) => {
    seen[label]!.push({ host: req.headers.host, path: `CONNECT ${req.url}`, sni: undefined });
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
  });
  servers.push(server);
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => done((server.address() as AddressInfo).port));
  });
}

const legitRoutes: Handler = (req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  if (url.pathname === "/file") return void res.end("legit body");
  if (url.pathname === "/to-b") return void res.writeHead(302, { location: `http://b.test:${port}/file` }).end();
  if (url.pathname === "/to-ip") return void res.writeHead(307, { location: `http://127.0.0.1:${port}/file` }).end();
  if (url.pathname === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
  if (url.pathname === "/post-303") return void res.writeHead(303, { location: "/echo" }).end();
  if (url.pathname === "/echo") {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => res.end(JSON.stringify({ method: req.method, body, type: req.headers["content-type"] ?? null })));
    return;
  }
  if (url.pathname === "/credentials") {
    const { authorization = null, cookie = null } = req.headers;
    return void res.end(JSON.stringify({ authorization, cookie, proxyAuthorization: req.headers["proxy-authorization"] ?? null }));
  }
  if (url.pathname === "/to-b-credentials") return void res.writeHead(302, { location: `http://b.test:${port}/credentials` }).end();
  if (url.pathname === "/to-same-credentials") return void res.writeHead(307, { location: "/credentials" }).end();
  if (url.pathname === "/to-b-then-back") return void res.writeHead(302, { location: `http://b.test:${port}/to-a-credentials` }).end();
  if (url.pathname === "/to-a-credentials") return void res.writeHead(302, { location: `http://a.test:${port}/credentials` }).end();
  if (url.pathname === "/jwks") return void res.writeHead(200, { "content-type": "application/json" }).end(jwks);
  if (url.pathname === "/stall") {
    res.writeHead(200);
    res.write("first");
    return; // never ends
  }
  res.writeHead(404).end();
};
const internalRoutes: Handler = (_req, res) => void res.end("INTERNAL");

let port: number;
let tlsPort: number;
let proxyPort: number;
let jwks = "";

beforeAll(async () => {
  port = await listen(createServer(), "legit", "127.0.0.2", 0, legitRoutes);
  await listen(createServer(), "internal", "127.0.0.1", port, internalRoutes);
  await listen(createServer(), "internal6", "::1", port, internalRoutes);
  tlsPort = await listen(createHttpsServer({ key, cert }), "legitTls", "127.0.0.2", 0, legitRoutes);
  await listen(createHttpsServer({ key, cert }), "internalTls", "127.0.0.1", tlsPort, internalRoutes);
  proxyPort = await listen(createServer(), "proxy", "127.0.0.1", 0, (_req, res) => void res.end("PROXIED"));
});

afterAll(() => {
  for (const server of servers) server.closeAllConnections?.();
  for (const server of servers) server.close();
});

/**
 * A resolver that answers `first` on its first lookup of each name and
 * `later` on every later one: what a rebinding DNS server does. It records
 * every lookup.
 */
function rebinding(first: string, later = "127.0.0.1"): { resolve: Resolver; lookups: string[] } {
  const lookups: string[] = [];
  const resolve: Resolver = async (host) => {
    const again = lookups.includes(host);
    lookups.push(host);
    return [again ? later : first];
  };
  return { resolve, lookups };
}

function counts(): Record<string, number> {
  return Object.fromEntries(Object.entries(seen).map(([label, list]) => [label, list.length]));
}

function delta(before: Record<string, number>): Record<string, number> {
  const now = counts();
  return Object.fromEntries(Object.keys(now).map((label) => [label, now[label]! - before[label]!]));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("egressFetch pins the connection to the checked address", () => {
  test("a DNS answer that changes after the check does not move the connection (rebinding)", async () => {
    // "localhost" is also what the system resolver answers 127.0.0.1 / ::1 for, where the
    // internal servers listen: a client that resolved the name again would reach them.
    const { resolve, lookups } = rebinding("127.0.0.2");
    const before = counts();
    const response = await egressFetch(`http://localhost:${port}/file`, { policy, resolve });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("legit body");
    expect(response.url).toBe(`http://localhost:${port}/file`);
    expect(lookups).toEqual(["localhost"]);
    expect(delta(before)).toMatchObject({ legit: 1, internal: 0, internal6: 0, proxy: 0 });
    // The server sees the original host name and port, as with any name-resolving client.
    expect(seen.legit!.at(-1)!.host).toBe(`localhost:${port}`);
  });

  test("following redirects, each hop is looked up once, checked and pinned", async () => {
    const { resolve, lookups } = rebinding("127.0.0.2");
    const before = counts();
    const response = await egressFetch(`http://a.test:${port}/to-b`, { policy, resolve, redirect: "follow" });
    expect(await response.text()).toBe("legit body");
    expect(response.url).toBe(`http://b.test:${port}/file`);
    expect(lookups).toEqual(["a.test", "b.test"]);
    expect(delta(before)).toMatchObject({ legit: 2, internal: 0, internal6: 0 });
    expect(seen.legit!.slice(-2).map((request) => request.host)).toEqual([`a.test:${port}`, `b.test:${port}`]);
  });

  test("a redirect hop that fails the check is refused before any connection", async () => {
    const before = counts();
    const error = await rejection(
      egressFetch(`http://a.test:${port}/to-ip`, { policy, resolve: rebinding("127.0.0.2").resolve, redirect: "follow" }),
    );
    expect(error).toBeInstanceOf(EgressRefused);
    expect((error as EgressRefused).code).toBe("address_not_allowed");
    expect(delta(before)).toMatchObject({ legit: 1, internal: 0 });
  });

  test("a name answering an allowed and a refused address is refused without connecting", async () => {
    const before = counts();
    const error = await rejection(egressFetch(`http://a.test:${port}/file`, { policy, resolve: async () => ["127.0.0.2", "127.0.0.1"] }));
    expect((error as EgressRefused).code).toBe("address_not_allowed");
    expect(delta(before)).toMatchObject({ legit: 0, internal: 0 });
  });

  test("when a checked address refuses the connection, the next checked address is tried", async () => {
    const before = counts();
    const wide = parseEgressAllow("127.0.0.2,127.0.0.3");
    const response = await egressFetch(`http://two.test:${port}/file`, { policy: wide, resolve: async () => ["127.0.0.3", "127.0.0.2"] });
    expect(await response.text()).toBe("legit body");
    expect(delta(before)).toMatchObject({ legit: 1, internal: 0 });
  });

  test("IPv6 addresses are pinned too, from a name or a literal", async () => {
    const v6 = parseEgressAllow("::1");
    const before = counts();
    const named = await egressFetch(`http://v6.test:${port}/file`, { policy: v6, resolve: async () => ["::1"] });
    expect(await named.text()).toBe("INTERNAL");
    expect(seen.internal6!.at(-1)!.host).toBe(`v6.test:${port}`);
    const literal = await egressFetch(`http://[::1]:${port}/file`, { policy: v6 });
    expect(await literal.text()).toBe("INTERNAL");
    expect(seen.internal6!.at(-1)!.host).toBe(`[::1]:${port}`);
    expect(delta(before)).toMatchObject({ internal6: 2, internal: 0, legit: 0 });
  });
});

describe("egressFetch over TLS", () => {
  test("verifies the certificate against the host name, sent as SNI, on the pinned address", async () => {
    const { resolve, lookups } = rebinding("127.0.0.2");
    const before = counts();
    const response = await egressFetch(`https://legit.test:${tlsPort}/file`, { policy, resolve, ca: cert });
    expect(await response.text()).toBe("legit body");
    expect(lookups).toEqual(["legit.test"]);
    expect(delta(before)).toMatchObject({ legitTls: 1, internalTls: 0 });
    expect(seen.legitTls!.at(-1)).toEqual({ host: `legit.test:${tlsPort}`, path: "/file", sni: "legit.test" });
  });

  test("a certificate that does not name the host fails, and no request is sent", async () => {
    const before = counts();
    const error = await rejection(
      egressFetch(`https://other.test:${tlsPort}/file`, { policy, resolve: rebinding("127.0.0.2").resolve, ca: cert }),
    );
    expect(error).toBeInstanceOf(EgressConnectionFailed);
    expect(((error as Error).cause as { code?: string }).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    // The message reaching callers names neither the address nor the TLS detail.
    expect((error as Error).message).not.toContain("127.0.0.2");

    // An IP literal URL is checked against the IP: this certificate names none.
    const literal = await rejection(egressFetch(`https://127.0.0.2:${tlsPort}/file`, { policy, ca: cert }));
    expect(((literal as Error).cause as { code?: string }).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(delta(before)).toMatchObject({ legitTls: 0, internalTls: 0 });
  });

  test("without the test CA the self-signed certificate is not trusted", async () => {
    const error = await rejection(egressFetch(`https://legit.test:${tlsPort}/file`, { policy, resolve: rebinding("127.0.0.2").resolve }));
    expect(error).toBeInstanceOf(EgressConnectionFailed);
    expect(((error as Error).cause as { code?: string }).code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
  });
});

describe("egressFetch and proxy environment variables", () => {
  const names = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"];

  test("proxy variables set in this process are ignored: the request goes direct", async () => {
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    const savedNoProxy = process.env.NO_PROXY;
    for (const name of names) process.env[name] = `http://127.0.0.1:${proxyPort}`;
    delete process.env.NO_PROXY;
    try {
      const before = counts();
      const plain = await egressFetch(`http://localhost:${port}/file`, { policy, resolve: rebinding("127.0.0.2").resolve });
      expect(await plain.text()).toBe("legit body");
      const tls = await egressFetch(`https://legit.test:${tlsPort}/file`, { policy, resolve: rebinding("127.0.0.2").resolve, ca: cert });
      expect(await tls.text()).toBe("legit body");
      expect(delta(before)).toMatchObject({ proxy: 0, legit: 1, legitTls: 1, internal: 0, internalTls: 0 });
    } finally {
      for (const name of names) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
      if (savedNoProxy !== undefined) process.env.NO_PROXY = savedNoProxy;
    }
  });

  test("in a process started with proxy variables, NODE_USE_ENV_PROXY=1 and NODE_TLS_REJECT_UNAUTHORIZED=0, the guard still holds", async () => {
    const module = join(import.meta.dir, "egress-fetch.ts");
    const egress = join(import.meta.dir, "egress.ts");
    const script = `
      const { egressFetch } = await import(${JSON.stringify(module)});
      const { parseEgressAllow } = await import(${JSON.stringify(egress)});
      const policy = parseEgressAllow("127.0.0.2");
      const resolve = async () => ["127.0.0.2"];
      const out = {};
      const plain = await egressFetch("http://localhost:${port}/file", { policy, resolve });
      out.plain = await plain.text();
      const tls = await egressFetch("https://legit.test:${tlsPort}/file", { policy, resolve, ca: ${JSON.stringify(cert)} });
      out.tls = await tls.text();
      out.wrongName = await egressFetch("https://other.test:${tlsPort}/file", { policy, resolve, ca: ${JSON.stringify(cert)} })
        .then(() => "accepted", (error) => error.cause?.code ?? String(error));
      out.noCa = await egressFetch("https://legit.test:${tlsPort}/file", { policy, resolve })
        .then(() => "accepted", (error) => error.cause?.code ?? String(error));
      console.log(JSON.stringify(out));
    `;
    const proxy = `http://127.0.0.1:${proxyPort}`;
    const before = counts();
    const child = Bun.spawn([process.execPath, "-e", script], {
      env: {
        ...process.env,
        ...Object.fromEntries(names.map((name) => [name, proxy])),
        NO_PROXY: "",
        NODE_USE_ENV_PROXY: "1",
        NODE_TLS_REJECT_UNAUTHORIZED: "0",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (exitCode !== 0) throw new Error(`child failed: ${stderr}`);
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
      plain: "legit body",
      tls: "legit body",
      wrongName: "ERR_TLS_CERT_ALTNAME_INVALID",
      noCa: "DEPTH_ZERO_SELF_SIGNED_CERT",
    });
    expect(delta(before)).toMatchObject({ proxy: 0, legit: 1, legitTls: 1, internal: 0, internalTls: 0 });
  });
});

describe("egressFetch requests and responses", () => {
  test("manual (the default) returns a redirect as is; error rejects it; follow stops after maxRedirects", async () => {
    const resolve: Resolver = async () => ["127.0.0.2"];
    const manual = await egressFetch(`http://a.test:${port}/to-b`, { policy, resolve });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe(`http://b.test:${port}/file`);
    await manual.body?.cancel();

    const refused = await rejection(egressFetch(`http://a.test:${port}/to-b`, { policy, resolve, redirect: "error" }));
    expect((refused as EgressRedirectRefused).code).toBe("redirect_refused");
    const loop = await rejection(egressFetch(`http://a.test:${port}/loop`, { policy, resolve, redirect: "follow", maxRedirects: 3 }));
    expect((loop as EgressRedirectRefused).code).toBe("too_many_redirects");
  });

  test("sends the method, headers and body; a 303 after POST becomes a GET without body", async () => {
    const resolve: Resolver = async () => ["127.0.0.2"];
    const posted = await egressFetch(`http://a.test:${port}/echo`, {
      policy,
      resolve,
      method: "POST",
      headers: { "content-type": "application/json", host: "evil.test" },
      body: '{"a":1}',
    });
    expect(await posted.json()).toEqual({ method: "POST", body: '{"a":1}', type: "application/json" });
    // A Host header from the caller never replaces the URL's host.
    expect(seen.legit!.at(-1)!.host).toBe(`a.test:${port}`);

    const redirected = await egressFetch(`http://a.test:${port}/post-303`, {
      policy,
      resolve,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
      redirect: "follow",
    });
    expect(await redirected.json()).toEqual({ method: "GET", body: "", type: null });
  });

  test("credentials (Authorization, Cookie, Proxy-Authorization) are dropped on a redirect to another origin, kept on the same origin", async () => {
    const resolve: Resolver = async () => ["127.0.0.2"];
    const credentials = { authorization: "Bearer secret-token", cookie: "session=secret-cookie", "proxy-authorization": "Basic c2VjcmV0" };
    const kept = { authorization: "Bearer secret-token", cookie: "session=secret-cookie", proxyAuthorization: "Basic c2VjcmV0" };
    const dropped = { authorization: null, cookie: null, proxyAuthorization: null };
    const follow = async (path: string) =>
      (await egressFetch(`http://a.test:${port}${path}`, { policy, resolve, headers: credentials, redirect: "follow" })).json();
    // Straight to the server, and through a same-origin redirect: the credentials arrive.
    expect(await follow("/credentials")).toEqual(kept);
    expect(await follow("/to-same-credentials")).toEqual(kept);
    // To another host: none of them.
    expect(await follow("/to-b-credentials")).toEqual(dropped);
    // Once dropped they stay dropped, even when a later hop comes back to the first origin.
    expect(await follow("/to-b-then-back")).toEqual(dropped);
  });

  test("a body cut short by the server is an error, not a shorter body", async () => {
    const raw = createNetServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
        setTimeout(() => socket.destroy(), 20);
      });
    });
    await new Promise<void>((done) => raw.listen(0, "127.0.0.2", done));
    try {
      const rawPort = (raw.address() as AddressInfo).port;
      const response = await egressFetch(`http://a.test:${rawPort}/`, { policy, resolve: async () => ["127.0.0.2"] });
      expect(response.headers.get("content-length")).toBe("100");
      expect(await rejection(response.text())).toBeInstanceOf(Error);
    } finally {
      raw.close();
    }
  });

  test("the signal aborts a body that stalls, with the signal's reason", async () => {
    const controller = new AbortController();
    const response = await egressFetch(`http://a.test:${port}/stall`, { policy, resolve: async () => ["127.0.0.2"], signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first");
    const reason = new Error("stop");
    setTimeout(() => controller.abort(reason), 50);
    expect(await rejection(reader.read())).toBe(reason);
  });
});

describe("guardedFetch", () => {
  test("works as jose's customFetch for a remote JWKS, through the guard", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }] });
    const token = await new SignJWT({ sub: "u1" }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setExpirationTime("5m").sign(privateKey);
    const { resolve, lookups } = rebinding("127.0.0.2");
    const before = counts();
    const keySet = createRemoteJWKSet(new URL(`http://idp.test:${port}/jwks`), { [customFetch]: guardedFetch(policy, resolve) });
    const { payload } = await jwtVerify(token, keySet);
    expect(payload.sub).toBe("u1");
    expect(lookups).toEqual(["idp.test"]);
    expect(delta(before)).toMatchObject({ legit: 1, internal: 0 });
  });

  test("refuses what the policy refuses, and follows redirects only through the guard", async () => {
    const fetchLike = guardedFetch(policy, async () => ["127.0.0.2"]);
    const refused = await rejection(fetchLike(`http://127.0.0.1:${port}/file`));
    expect((refused as EgressRefused).code).toBe("address_not_allowed");
    const followed = await fetchLike(new Request(`http://a.test:${port}/to-b`));
    expect(await followed.text()).toBe("legit body");
    const manual = await fetchLike(`http://a.test:${port}/to-b`, { redirect: "manual" });
    expect(manual.status).toBe(302);
    await manual.body?.cancel();
  });
});

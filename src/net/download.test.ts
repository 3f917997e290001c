import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, type Server as NetServer, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DownloadFailed, type DownloadFailureCode, type DownloadOptions, downloadToFile } from "./download.ts";
import { type Resolver, parseEgressAllow } from "./egress.ts";

const MiB = 1024 * 1024;
const payload = new Uint8Array(3 * MiB + 12345).map((_, i) => (i * 31 + (i >> 11)) & 0xff);

// The injected resolver: "internal.example" is a private address the policy does not allow.
const resolve: Resolver = async (host) => {
  if (host === "internal.example") return ["10.0.0.1"];
  if (host === "loopback.test") return ["127.0.0.1"];
  throw new Error(`ENOTFOUND ${host}`);
};
const policy = parseEgressAllow("127.0.0.1");

let server: ReturnType<typeof Bun.serve>;
let base: string;
let raw: NetServer;
let rawBase: string;
const rawSockets = new Set<Socket>();
let rawBytesSent = 0;
let dir: string;
let counter = 0;

/** A body that sends `first` bytes and then never ends (until the client goes away). */
function stalledBody(first: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(first).fill(7));
    },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "verbatim-download-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      if (path === "/file") return new Response(payload, { headers: { "content-type": "audio/mpeg" } });
      if (path === "/empty") return new Response(null, { status: 204 });
      const chain = path.match(/^\/chain\/(\d+)$/);
      if (chain) {
        const left = Number(chain[1]);
        if (left === 0) return Response.redirect("/file", 302);
        // Alternate path-relative, absolute and scheme-relative Locations, and the redirect statuses.
        const next = left % 3 === 0 ? `./${left - 1}` : left % 3 === 1 ? `${base}/chain/${left - 1}` : `//127.0.0.1:${server.port}/chain/${left - 1}`;
        return new Response(null, { status: [301, 302, 303, 307, 308][left % 5]!, headers: { location: next } });
      }
      if (path === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } });
      if (path === "/to-metadata") return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
      if (path === "/to-internal") return Response.redirect("https://internal.example/a.mp3", 307);
      if (path === "/to-http-public") return Response.redirect("http://93.184.216.34/a.mp3", 302);
      if (path === "/to-userinfo") return Response.redirect(`http://user:pw@127.0.0.1:${server.port}/file`, 302);
      if (path === "/no-location") return new Response(null, { status: 302 });
      if (path === "/missing") return new Response("not here", { status: 404 });
      if (path === "/broken") return new Response("oops", { status: 503 });
      if (path === "/endless") {
        // Chunked (no Content-Length), 64 KiB chunks forever.
        const chunk = new Uint8Array(64 * 1024).fill(1);
        return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }));
      }
      if (path === "/stall") return new Response(stalledBody(1000));
      if (path === "/slow-headers") {
        await Bun.sleep(5000);
        return new Response("late");
      }
      return new Response("no route", { status: 500 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;

  // A raw server for what Bun.serve will not send: a Content-Length larger than the body it sends.
  raw = createServer((socket) => {
    rawSockets.add(socket);
    socket.on("close", () => rawSockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nContent-Length: 10000000\r\n\r\n");
      socket.write(Buffer.alloc(10, 1));
      rawBytesSent += 10;
    });
  });
  await new Promise<void>((done) => raw.listen(0, "127.0.0.1", done));
  const address = raw.address();
  if (address === null || typeof address === "string") throw new Error("raw server has no port");
  rawBase = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  server.stop(true);
  for (const socket of rawSockets) socket.destroy();
  raw.close();
  await rm(dir, { recursive: true, force: true });
});

function destination(): string {
  return join(dir, `out-${++counter}.bin`);
}

function options(overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  return { policy, maxBytes: 10 * MiB, timeoutMs: 3000, resolve, ...overrides };
}

/** Runs a download that must fail; checks the code and that neither the file nor the .part file is left. */
async function expectFailure(url: string, code: DownloadFailureCode, overrides: Partial<DownloadOptions> = {}): Promise<DownloadFailed> {
  const target = destination();
  let caught: unknown;
  try {
    await downloadToFile(url, target, options(overrides));
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DownloadFailed);
  const failure = caught as DownloadFailed;
  expect(failure.code).toBe(code);
  expect(existsSync(target)).toBe(false);
  expect(existsSync(`${target}.part`)).toBe(false);
  return failure;
}

/**
 * Pinned connections (DNS rebinding, proxies, TLS). The policy allows only
 * 127.0.0.2, where the "legit" servers listen; "internal" servers listen on
 * 127.0.0.1 and ::1 at the same port numbers, which is also where the system
 * resolver sends "localhost". All traffic stays on loopback.
 */
describe("downloadToFile connects only to the checked address", () => {
  const pinnedPolicy = parseEgressAllow("127.0.0.2");
  const tlsDir = join(import.meta.dir, "../../test/fixtures/tls");
  const cert = readFileSync(join(tlsDir, "legit.test.cert.pem"), "utf8");
  const key = readFileSync(join(tlsDir, "legit.test.key.pem"), "utf8");
  const servers: (HttpServer | NetServer)[] = [];
  const hits = { legit: [] as string[], internal: [] as string[], proxy: [] as string[] };
  let port = 0;
  let tlsPort = 0;
  let proxyPort = 0;

  const legit = (req: IncomingMessage, res: ServerResponse) => {
    hits.legit.push(`${req.headers.host} ${req.url}`);
    if (req.url === "/to-b") return void res.writeHead(302, { location: `http://b.test:${port}/file` }).end();
    res.writeHead(200, { "content-type": "audio/mpeg" }).end(payload.subarray(0, 1000));
  };
  const internal = (req: IncomingMessage, res: ServerResponse) => {
    hits.internal.push(`${req.headers.host} ${req.url}`);
    res.end("INTERNAL");
  };
  const proxy = (req: IncomingMessage, res: ServerResponse) => {
    hits.proxy.push(`${req.method} ${req.url}`);
    res.end("PROXIED");
  };
  async function listen(server: HttpServer, host: string, at: number): Promise<number> {
    servers.push(server);
    // A proxy is asked to CONNECT for https: count it and refuse.
    server.on("connect", (req: IncomingMessage, socket: Socket) => {
      hits.proxy.push(`CONNECT ${req.url}`);
      socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    });
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(at, host, done);
    });
    return (server.address() as AddressInfo).port;
  }

  /** Answers `first` for a name's first lookup and 127.0.0.1 for every later one (a rebinding DNS server). */
  function rebinding(first: string): { resolve: Resolver; lookups: string[] } {
    const lookups: string[] = [];
    return {
      lookups,
      resolve: async (host) => {
        const again = lookups.includes(host);
        lookups.push(host);
        return [again ? "127.0.0.1" : first];
      },
    };
  }

  beforeAll(async () => {
    port = await listen(createHttpServer(legit), "127.0.0.2", 0);
    await listen(createHttpServer(internal), "127.0.0.1", port);
    await listen(createHttpServer(internal), "::1", port);
    tlsPort = await listen(createHttpsServer({ key, cert }, legit), "127.0.0.2", 0);
    await listen(createHttpsServer({ key, cert }, internal), "127.0.0.1", tlsPort);
    proxyPort = await listen(createHttpServer(proxy), "127.0.0.1", 0);
  });

  afterAll(() => {
    for (const server of servers) {
      if ("closeAllConnections" in server) server.closeAllConnections();
      server.close();
    }
  });

  test("a DNS answer that changes after the check does not move the connection (rebinding)", async () => {
    // The injected resolver approves 127.0.0.2 once; any later lookup, or the system
    // resolver ("localhost" is 127.0.0.1 / ::1), would lead to the internal server.
    const { resolve, lookups } = rebinding("127.0.0.2");
    hits.legit.length = hits.internal.length = 0;
    const target = destination();
    const result = await downloadToFile(`http://localhost:${port}/file`, target, options({ policy: pinnedPolicy, resolve }));
    expect(result.bytes).toBe(1000);
    expect(new Uint8Array(await readFile(target))).toEqual(payload.subarray(0, 1000));
    expect(lookups).toEqual(["localhost"]);
    expect(hits.internal).toEqual([]);
    // The legit server saw the original host name and port in Host.
    expect(hits.legit).toEqual([`localhost:${port} /file`]);
  });

  test("each redirect hop is looked up once, checked and pinned", async () => {
    const { resolve, lookups } = rebinding("127.0.0.2");
    hits.legit.length = hits.internal.length = 0;
    const result = await downloadToFile(`http://a.test:${port}/to-b`, destination(), options({ policy: pinnedPolicy, resolve }));
    expect(result).toMatchObject({ bytes: 1000, finalUrl: `http://b.test:${port}/file` });
    expect(lookups).toEqual(["a.test", "b.test"]);
    expect(hits.internal).toEqual([]);
    expect(hits.legit).toEqual([`a.test:${port} /to-b`, `b.test:${port} /file`]);
  });

  test("https: pinned, with the host name as TLS server name and certificate name", async () => {
    const { resolve, lookups } = rebinding("127.0.0.2");
    hits.legit.length = hits.internal.length = 0;
    const result = await downloadToFile(`https://legit.test:${tlsPort}/file`, destination(), options({ policy: pinnedPolicy, resolve, ca: cert }));
    expect(result.bytes).toBe(1000);
    expect(lookups).toEqual(["legit.test"]);
    expect(hits.legit).toEqual([`legit.test:${tlsPort} /file`]);

    // The same server under a name its certificate does not carry: a failed download, no request.
    const failure = await expectFailure(`https://other.test:${tlsPort}/file`, "download_failed", {
      policy: pinnedPolicy,
      resolve: rebinding("127.0.0.2").resolve,
      ca: cert,
    });
    expect(String((failure.cause as Error & { cause?: { code?: string } }).cause?.code)).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(hits.legit).toHaveLength(1);
    expect(hits.internal).toEqual([]);
  });

  test("proxy environment variables do not reroute the download", async () => {
    // A fresh process started with the variables, as an operator's environment would set them.
    const script = `
      const { downloadToFile } = await import(${JSON.stringify(join(import.meta.dir, "download.ts"))});
      const { parseEgressAllow } = await import(${JSON.stringify(join(import.meta.dir, "egress.ts"))});
      const result = await downloadToFile("http://localhost:${port}/file", ${JSON.stringify(destination())}, {
        policy: parseEgressAllow("127.0.0.2"), maxBytes: 1e6, timeoutMs: 3000, resolve: async () => ["127.0.0.2"],
      });
      console.log(JSON.stringify(result.bytes));
    `;
    const proxyUrl = `http://127.0.0.1:${proxyPort}`;
    const env: Record<string, string | undefined> = { ...process.env, NO_PROXY: "", no_proxy: "", NODE_USE_ENV_PROXY: "1" };
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]) env[name] = proxyUrl;
    hits.legit.length = hits.internal.length = hits.proxy.length = 0;
    const child = Bun.spawn([process.execPath, "-e", script], { env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ exitCode, stderr: exitCode === 0 ? "" : stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(stdout.trim()).toBe("1000");
    expect(hits.proxy).toEqual([]);
    expect(hits.internal).toEqual([]);
    expect(hits.legit).toEqual([`localhost:${port} /file`]);
  });
});

describe("downloadToFile", () => {
  test("downloads the exact bytes, reporting progress", async () => {
    const target = destination();
    const progress: [number, number | null][] = [];
    const started = Date.now();
    const result = await downloadToFile(`${base}/file`, target, options({ onProgress: (bytes, total) => progress.push([bytes, total]) }));
    const elapsed = Date.now() - started;

    expect(result).toEqual({ bytes: payload.length, contentType: "audio/mpeg", finalUrl: `${base}/file` });
    expect(new Uint8Array(await readFile(target))).toEqual(payload);
    expect(existsSync(`${target}.part`)).toBe(false);

    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toEqual([payload.length, payload.length]);
    for (let i = 1; i < progress.length; i++) expect(progress[i]![0]).toBeGreaterThan(progress[i - 1]![0]);
    // At most one call per MiB or per 250 ms, plus the final one.
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(payload.length / MiB) + Math.ceil(elapsed / 250) + 1);
  });

  test("replaces an existing destination only on success, and creates missing folders", async () => {
    const target = join(dir, "nested", "deeper", "a.bin");
    const result = await downloadToFile(`${base}/file`, target, options());
    expect(result.bytes).toBe(payload.length);
    expect((await readFile(target)).length).toBe(payload.length);

    const existing = destination();
    await writeFile(existing, "previous");
    await expect(downloadToFile(`${base}/missing`, existing, options())).rejects.toBeInstanceOf(DownloadFailed);
    expect(await readFile(existing, "utf8")).toBe("previous");
  });

  test("an empty body gives an empty file", async () => {
    const target = destination();
    const result = await downloadToFile(`${base}/empty`, target, options());
    expect(result.bytes).toBe(0);
    expect((await readFile(target)).length).toBe(0);
  });

  test("follows a chain of 5 redirects (relative, absolute, scheme-relative) and reports the final URL", async () => {
    const target = destination();
    const result = await downloadToFile(`${base}/chain/4`, target, options());
    expect(result.finalUrl).toBe(`${base}/file`);
    expect(result.bytes).toBe(payload.length);
    expect(new Uint8Array(await readFile(target))).toEqual(payload);
  });

  test("gives up past maxRedirects", async () => {
    const failure = await expectFailure(`${base}/chain/5`, "too_many_redirects");
    expect(failure.message).toContain("5");
    await expectFailure(`${base}/loop`, "too_many_redirects");
    await expectFailure(`${base}/chain/0`, "too_many_redirects", { maxRedirects: 0 });
    expect((await downloadToFile(`${base}/chain/0`, destination(), options({ maxRedirects: 1 }))).bytes).toBe(payload.length);
  });

  test("a redirect to the metadata address is refused", async () => {
    const failure = await expectFailure(`${base}/to-metadata`, "address_not_allowed");
    expect(failure.message).toContain("169.254.169.254");
  });

  test("a redirect to a name resolving to a private address is refused", async () => {
    const failure = await expectFailure(`${base}/to-internal`, "address_not_allowed");
    expect(failure.message).toContain("internal.example");
  });

  test("redirects cannot downgrade to http on a public host or carry credentials", async () => {
    await expectFailure(`${base}/to-http-public`, "url_not_https");
    await expectFailure(`${base}/to-userinfo`, "url_invalid");
  });

  test("the first URL is checked too", async () => {
    await expectFailure(`http://127.0.0.2:${server.port}/file`, "address_not_allowed");
    await expectFailure(`${base}/file`, "address_not_allowed", { policy: parseEgressAllow(undefined) });
    await expectFailure("https://nowhere.test/a.mp3", "host_unresolvable");
    await expectFailure("not a url", "url_invalid");
  });

  test("a redirect without Location and non-2xx statuses are HTTP errors", async () => {
    const notFound = await expectFailure(`${base}/missing`, "download_http_error");
    expect(notFound.status).toBe(404);
    expect(notFound.message).toContain("404");
    expect((await expectFailure(`${base}/broken`, "download_http_error")).status).toBe(503);
    expect((await expectFailure(`${base}/no-location`, "download_http_error")).status).toBe(302);
  });

  test("a Content-Length over maxBytes is refused before reading the body", async () => {
    const started = Date.now();
    const failure = await expectFailure(`${rawBase}/big.wav`, "download_too_large", { maxBytes: 1000, timeoutMs: 5000 });
    expect(failure.message).toContain("10000000");
    // The body (10 bytes sent, then silence) was never read: reading would have waited for the 5 s deadline.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(rawBytesSent).toBeGreaterThan(0);
  });

  test("a chunked body growing past maxBytes is aborted, and the partial file removed", async () => {
    let sawPart = false;
    let target = "";
    const onProgress = () => {
      sawPart ||= existsSync(`${target}.part`);
    };
    target = destination();
    let caught: unknown;
    try {
      await downloadToFile(`${base}/endless`, target, options({ maxBytes: 3 * MiB, onProgress }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DownloadFailed);
    expect((caught as DownloadFailed).code).toBe("download_too_large");
    // The .part file existed while streaming, and is gone now.
    expect(sawPart).toBe(true);
    expect(existsSync(`${target}.part`)).toBe(false);
    expect(existsSync(target)).toBe(false);
  });

  test("a body that stalls past timeoutMs times out", async () => {
    const started = Date.now();
    const failure = await expectFailure(`${base}/stall`, "download_timeout", { timeoutMs: 300 });
    expect(failure.message).toContain("300 ms");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("headers that never come time out", async () => {
    const started = Date.now();
    await expectFailure(`${base}/slow-headers`, "download_timeout", { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("a DNS lookup that hangs is bounded by the same deadline", async () => {
    const hanging: Resolver = () => new Promise(() => {});
    const started = Date.now();
    await expectFailure("https://stuck.example/a.mp3", "download_timeout", { timeoutMs: 200, resolve: hanging });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("options.signal cancels a running download", async () => {
    const controller = new AbortController();
    const reason = new Error("job cancelled");
    setTimeout(() => controller.abort(reason), 150);
    const started = Date.now();
    const failure = await expectFailure(`${base}/stall`, "download_failed", { signal: controller.signal, timeoutMs: 5000 });
    expect(failure.message).toContain("cancelled");
    expect(failure.cause).toBe(reason);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("an already aborted signal fails at once without touching the network", async () => {
    const controller = new AbortController();
    controller.abort();
    const lookups: string[] = [];
    const spy: Resolver = async (host) => {
      lookups.push(host);
      return ["127.0.0.1"];
    };
    await expectFailure("http://loopback.test/file", "download_failed", { signal: controller.signal, resolve: spy });
    expect(lookups).toEqual([]);
  });

  test("no stray .part files remain in the work folder", async () => {
    const names = await readdir(dir, { recursive: true });
    expect(names.filter((name) => String(name).endsWith(".part"))).toEqual([]);
  });
});

/**
 * Outbound HTTP(S) under the egress policy, pinned to the checked address.
 *
 * Every hop is resolved ONCE (checkEgress, with the injected or system
 * resolver), checked, and then connected to exactly one of the addresses that
 * passed the check: the socket is opened to the IP literal, while the request
 * carries the URL's host in its Host header and, for https, in the TLS server
 * name (SNI); the certificate is verified against that host name. Nothing
 * resolves the name a second time, so a DNS answer that changes between the
 * check and the connect (DNS rebinding) cannot steer the connection.
 *
 * Why node:http(s) and not Bun's fetch (measured on Bun 1.4.5, see
 * docs/decisions.md "Egress pinned to the checked address"): Bun's fetch sends
 * every request through HTTP(S)_PROXY when those are set, even to an IP
 * literal, and offers no option to turn that off; node:http(s) with
 * `agent: false` never uses a proxy (the global agent does when
 * NODE_USE_ENV_PROXY=1). Proxy environment variables are therefore IGNORED
 * here: the guarded connection is always direct.
 *
 * Certificate verification is forced on (`rejectUnauthorized: true`), so
 * NODE_TLS_REJECT_UNAUTHORIZED=0 does not switch it off for client URLs;
 * NODE_EXTRA_CA_CERTS still adds an internal CA.
 *
 * Response bodies are passed through as sent: the request asks for
 * `accept-encoding: identity` unless the caller sets that header, and no
 * content decoding is done.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { parseIP } from "./addresses.ts";
import { type EgressPolicy, type Resolver, checkEgress } from "./egress.ts";

export interface EgressFetchOptions {
  /** The allowlist every hop is checked against. */
  policy: EgressPolicy;
  /** Default GET. */
  method?: string;
  /** Any Host header given here is replaced by the URL's host. */
  headers?: Bun.HeadersInit;
  body?: string | Uint8Array | null;
  /** Aborts the lookup, the connection and the response body (rejects with signal.reason). */
  signal?: AbortSignal;
  /** Host name resolver, called exactly once per hop; defaults to the system resolver. */
  resolve?: Resolver;
  /**
   * "manual" (the default): a 3xx response is returned as is, Location unread.
   * "follow": redirects are followed here, each hop checked and pinned anew.
   * "error": a 3xx response rejects with EgressRedirectRefused.
   */
  redirect?: "manual" | "follow" | "error";
  /** Redirects followed in "follow" mode before rejecting; default 5. */
  maxRedirects?: number;
  /**
   * Tests only: the CA certificates to trust INSTEAD of the system roots
   * (PEM). Operators add an internal CA with NODE_EXTRA_CA_CERTS.
   */
  ca?: string | Uint8Array;
}

/** A redirect refused by redirect: "error" or past maxRedirects in "follow" mode. */
export class EgressRedirectRefused extends Error {
  override readonly name = "EgressRedirectRefused";
  readonly code: "redirect_refused" | "too_many_redirects";
  constructor(code: "redirect_refused" | "too_many_redirects", message: string) {
    super(message);
    this.code = code;
  }
}

/** The connection failed or the response was malformed; details (addresses, TLS reasons) stay in cause. */
export class EgressConnectionFailed extends Error {
  override readonly name = "EgressConnectionFailed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** Errors that happen before a request byte is sent: the next checked address may be tried. */
const CONNECT_ERRORS = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "EAFNOSUPPORT"]);
/** Dropped when a redirect leaves the origin, as fetch does. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * One guarded request (following redirects only if asked). Resolves to a
 * standard Response whose body streams from the socket; `response.url` is the
 * URL the response came from. Rejects with EgressRefused (the policy refused
 * a hop), EgressRedirectRefused, EgressConnectionFailed, or signal.reason.
 */
export async function egressFetch(url: string | URL, options: EgressFetchOptions): Promise<Response> {
  const mode = options.redirect ?? "manual";
  const maxRedirects = options.maxRedirects ?? 5;
  const signal = options.signal;
  let method = (options.method ?? "GET").toUpperCase();
  let body = typeof options.body === "string" ? new TextEncoder().encode(options.body) : (options.body ?? null);
  const headers = new Headers(options.headers as HeadersInit | undefined);
  headers.delete("host");
  if (!headers.has("accept")) headers.set("accept", "*/*");
  if (!headers.has("accept-encoding")) headers.set("accept-encoding", "identity");
  if (!headers.has("user-agent")) headers.set("user-agent", "Verbatim");

  let current: string | URL = url;
  for (let redirects = 0; ; redirects++) {
    signal?.throwIfAborted();
    const { url: target, addresses } = await untilAborted(checkEgress(current, options.policy, options.resolve), signal);
    const response = await requestPinned(target, addresses, { method, headers, body, signal, ca: options.ca });
    Object.defineProperty(response, "url", { value: target.href });
    if (mode === "manual" || !REDIRECT_STATUSES.has(response.status)) return response;

    const location = response.headers.get("location");
    await response.body?.cancel().catch(() => {});
    if (mode === "error") {
      throw new EgressRedirectRefused("redirect_refused", `HTTP ${response.status} redirect refused`);
    }
    if (location === null || location === "") {
      throw new EgressConnectionFailed(`HTTP ${response.status} redirect without a Location header`);
    }
    if (redirects >= maxRedirects) {
      throw new EgressRedirectRefused("too_many_redirects", `Gave up after ${maxRedirects} redirects`);
    }
    let next: URL;
    try {
      next = new URL(location, target);
    } catch {
      throw new EgressConnectionFailed("Redirect Location is not a valid URL");
    }
    // As fetch: 303 (and 301/302 after POST) turn into a GET without a body.
    if (response.status === 303 ? method !== "HEAD" : (response.status === 301 || response.status === 302) && method === "POST") {
      method = "GET";
      body = null;
      for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) {
        headers.delete(name);
      }
    }
    if (next.origin !== target.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    current = next;
  }
}

/**
 * A fetch-compatible function under the policy, for libraries that take one
 * (jose's createRemoteJWKSet customFetch). Follows init.redirect like fetch
 * (default "follow"), each hop checked and pinned.
 */
export function guardedFetch(
  policy: EgressPolicy,
  resolve?: Resolver,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = input instanceof Request ? new Request(input, init) : new Request(input.toString(), init);
    const redirect = request.redirect === "error" || request.redirect === "manual" ? request.redirect : "follow";
    const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
    return egressFetch(request.url, {
      policy,
      resolve,
      method: request.method,
      headers: request.headers,
      body: hasBody ? new Uint8Array(await request.arrayBuffer()) : null,
      signal: init?.signal ?? (input instanceof Request ? input.signal : undefined),
      redirect,
    });
  };
}

interface PinnedRequest {
  method: string;
  headers: Headers;
  body: Uint8Array | null;
  signal: AbortSignal | undefined;
  ca: string | Uint8Array | undefined;
}

/** Tries the checked addresses in order, moving on only when a connection could not be opened. */
async function requestPinned(target: URL, addresses: string[], request: PinnedRequest): Promise<Response> {
  let lastError: unknown;
  for (const address of addresses) {
    try {
      return await requestOnce(target, address, request);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      lastError = error;
      if (!CONNECT_ERRORS.has((error as { code?: string }).code ?? "")) break;
    }
  }
  throw new EgressConnectionFailed("Could not connect to the URL's host", { cause: lastError });
}

/** One HTTP exchange with the socket opened to `address`, never to a name. */
function requestOnce(target: URL, address: string, request: PinnedRequest): Promise<Response> {
  const https = target.protocol === "https:";
  const host = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
  const nameIsAddress = parseIP(host) !== null;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // The URL's host (with a non-default port), as a name-resolving client would send it.
  headers.host = target.host;
  if (request.body !== null) headers["content-length"] = String(request.body.byteLength);

  const options: RequestOptions = {
    method: request.method,
    hostname: address,
    port: target.port === "" ? (https ? 443 : 80) : Number(target.port),
    path: `${target.pathname}${target.search}`,
    headers,
    // A private agent: the global one connects through HTTP(S)_PROXY when NODE_USE_ENV_PROXY=1.
    agent: false,
  };
  if (https) {
    // SNI and the certificate check use the host name; for an IP literal URL the certificate must name the IP.
    if (!nameIsAddress) options.servername = host;
    options.rejectUnauthorized = true;
    if (request.ca !== undefined) options.ca = typeof request.ca === "string" ? request.ca : Buffer.from(request.ca);
  }

  return new Promise<Response>((resolvePromise, reject) => {
    const signal = request.signal;
    let settled = false;
    let bodyController: ReadableStreamDefaultController<Uint8Array> | undefined;
    let bodyDone = false;

    const onAbort = () => {
      const reason = signal!.reason;
      req.destroy();
      fail(reason);
    };
    const cleanup = () => signal?.removeEventListener("abort", onAbort);
    const fail = (error: unknown) => {
      if (!settled) {
        settled = true;
        cleanup();
        reject(error);
        return;
      }
      if (bodyController && !bodyDone) {
        bodyDone = true;
        cleanup();
        try {
          bodyController.error(error);
        } catch {
          // The reader already went away.
        }
      }
    };

    const req = (https ? httpsRequest : httpRequest)(options, (res: IncomingMessage) => {
      settled = true;
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        cleanup();
        req.destroy();
        reject(new EgressConnectionFailed(`Server answered an invalid HTTP status ${status}`));
        return;
      }
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        try {
          responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        } catch {
          // A header value fetch would not accept either: leave it out.
        }
      }
      const noBody = NULL_BODY_STATUSES.has(status) || request.method === "HEAD";
      if (noBody) {
        res.resume();
        cleanup();
        resolvePromise(new Response(null, { status, statusText: res.statusMessage ?? "", headers: responseHeaders }));
        return;
      }
      const body = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            bodyController = controller;
            res.on("data", (chunk: Buffer) => {
              if (bodyDone) return;
              controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              // Backpressure: stop reading the socket until the consumer pulls.
              if ((controller.desiredSize ?? 0) <= 0) res.pause();
            });
            res.on("end", () => {
              if (bodyDone) return;
              bodyDone = true;
              cleanup();
              controller.close();
            });
            res.on("error", (error) => fail(error));
            res.on("close", () => {
              if (!bodyDone) fail(new EgressConnectionFailed("The connection closed before the body ended"));
            });
          },
          pull() {
            res.resume();
          },
          cancel() {
            bodyDone = true;
            cleanup();
            req.destroy();
          },
        },
        { highWaterMark: 1 },
      );
      resolvePromise(new Response(body, { status, statusText: res.statusMessage ?? "", headers: responseHeaders }));
    });
    req.on("error", (error) => fail(error));
    if (signal) {
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
    }
    req.end(request.body ?? undefined);
  });
}

/** Rejects with the signal's reason as soon as it aborts (DNS lookups cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

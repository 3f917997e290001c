/**
 * Download a client-supplied URL (audio_url) to a file, under the egress
 * policy, a size cap and one overall deadline.
 *
 * Every hop goes through egressFetch (src/net/egress-fetch.ts): the host is
 * resolved once, every answer checked (checkEgress), and the connection opened
 * to exactly a checked address, with the original Host header, TLS server
 * name and certificate check against the host name. A DNS answer that changes
 * after the check (DNS rebinding) therefore cannot redirect the connection,
 * and HTTP_PROXY / HTTPS_PROXY / NO_PROXY are ignored: the connection is
 * always direct. Redirects are followed here, by hand, so each hop is
 * checked and pinned anew.
 */
import { type FileHandle, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { EgressRefused, type EgressPolicy, type EgressRefusalCode, type Resolver } from "./egress.ts";
import { egressFetch } from "./egress-fetch.ts";

export interface DownloadOptions {
  policy: EgressPolicy;
  /** Largest body accepted, in bytes (after any content decoding). */
  maxBytes: number;
  /** One deadline for the whole download: DNS, every redirect hop, headers and body. */
  timeoutMs: number;
  /** Redirects followed before giving up; default 5. */
  maxRedirects?: number;
  /** Host name resolver; defaults to the system resolver. Tests inject one. */
  resolve?: Resolver;
  /** Cancels the download (for example, the job was cancelled or the server is stopping). */
  signal?: AbortSignal;
  /** Bytes written so far and the announced Content-Length (null if none); at most every ~250 ms or 1 MiB, and once at the end. */
  onProgress?(bytes: number, total: number | null): void;
  /** Tests only: CA certificates (PEM) trusted instead of the system roots. */
  ca?: string;
}

export type DownloadFailureCode =
  | EgressRefusalCode
  | "too_many_redirects"
  | "download_too_large"
  | "download_timeout"
  | "download_http_error"
  | "download_failed";

export class DownloadFailed extends Error {
  override readonly name = "DownloadFailed";
  readonly code: DownloadFailureCode;
  /** The HTTP status for download_http_error. */
  readonly status?: number;
  constructor(code: DownloadFailureCode, message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.status !== undefined) this.status = options.status;
  }
}

export interface DownloadResult {
  bytes: number;
  /** The Content-Type header of the final response, if any. */
  contentType: string | null;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_BYTES = 1024 * 1024;

/**
 * Fetch url into destination. The body is streamed to destination + ".part"
 * (awaiting each write, so a slow disk slows the read) and renamed into place
 * only when complete; on any failure the partial file is removed and
 * destination is never created. Every failure is a DownloadFailed.
 */
export async function downloadToFile(
  url: string,
  destination: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const maxRedirects = options.maxRedirects ?? 5;
  if (!(options.maxBytes >= 0)) throw new RangeError("maxBytes must be a non-negative number");
  if (!(options.timeoutMs > 0)) throw new RangeError("timeoutMs must be positive");

  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const part = `${destination}.part`;

  let response: Response | undefined;
  let reader: { cancel(): Promise<void> } | undefined;
  let file: FileHandle | undefined;
  let partCreated = false;
  let succeeded = false;

  try {
    signal.throwIfAborted();
    let current = url;
    let target: URL;
    let redirects = 0;
    for (;;) {
      // egressFetch checks the URL (EgressRefused, mapped below) and pins the connection.
      response = await egressFetch(current, {
        policy: options.policy,
        resolve: options.resolve,
        redirect: "manual",
        signal,
        // Audio does not compress; identity keeps Content-Length meaningful.
        headers: { "accept-encoding": "identity", accept: "*/*" },
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      });
      target = new URL(response.url);
      if (!REDIRECT_STATUSES.has(response.status)) break;

      const status = response.status;
      const location = response.headers.get("location");
      await discard(response);
      response = undefined;
      if (location === null || location === "") {
        throw new DownloadFailed("download_http_error", `HTTP ${status} redirect without a Location header`, { status });
      }
      if (redirects >= maxRedirects) {
        throw new DownloadFailed("too_many_redirects", `Gave up after ${maxRedirects} redirects`);
      }
      redirects++;
      try {
        current = new URL(location, target).href;
      } catch {
        throw new DownloadFailed("url_invalid", "Redirect Location is not a valid URL");
      }
    }

    if (!response.ok) {
      throw new DownloadFailed("download_http_error", `Server answered HTTP ${response.status}`, {
        status: response.status,
      });
    }

    const lengthHeader = response.headers.get("content-length");
    const total = lengthHeader !== null && /^\s*\d+\s*$/.test(lengthHeader) ? Number(lengthHeader) : null;
    if (total !== null && total > options.maxBytes) {
      throw new DownloadFailed(
        "download_too_large",
        `Content-Length ${total} exceeds the limit of ${options.maxBytes} bytes`,
      );
    }

    await mkdir(dirname(part), { recursive: true });
    partCreated = true;
    file = await open(part, "w");

    let bytes = 0;
    let reportedBytes = -1;
    let reportedAt = Date.now();
    const report = (final: boolean) => {
      if (!options.onProgress) return;
      const now = Date.now();
      if (final ? bytes === reportedBytes : bytes - reportedBytes < PROGRESS_BYTES && now - reportedAt < PROGRESS_INTERVAL_MS) {
        return;
      }
      reportedBytes = bytes;
      reportedAt = now;
      options.onProgress(bytes, total);
    };

    if (response.body) {
      const body = response.body.getReader();
      reader = body;
      for (;;) {
        const { done, value } = await body.read();
        if (done) break;
        if (value.byteLength === 0) continue;
        bytes += value.byteLength;
        if (bytes > options.maxBytes) {
          throw new DownloadFailed("download_too_large", `Body exceeds the limit of ${options.maxBytes} bytes`);
        }
        await file.write(value);
        report(false);
      }
      reader = undefined;
    }
    // The body can end without an error while the deadline passed in between.
    signal.throwIfAborted();
    await file.close();
    file = undefined;
    report(true);

    await rename(part, destination);
    succeeded = true;
    return { bytes, contentType: response.headers.get("content-type"), finalUrl: target.href };
  } catch (error) {
    throw toDownloadFailed(error, timeout, options);
  } finally {
    if (reader) await reader.cancel().catch(() => {});
    else if (response && !succeeded) await discard(response);
    if (file) await file.close().catch(() => {});
    if (!succeeded && partCreated) await rm(part, { force: true }).catch(() => {});
  }
}

function toDownloadFailed(error: unknown, timeout: AbortSignal, options: DownloadOptions): DownloadFailed {
  if (error instanceof DownloadFailed) return error;
  if (error instanceof EgressRefused) return new DownloadFailed(error.code, error.message, { cause: error });
  if (timeout.aborted) {
    return new DownloadFailed("download_timeout", `Download did not finish within ${options.timeoutMs} ms`, {
      cause: error,
    });
  }
  if (options.signal?.aborted) {
    return new DownloadFailed("download_failed", "Download was cancelled", { cause: options.signal.reason });
  }
  // Network errors can name internal details; keep them in cause, out of the message.
  return new DownloadFailed("download_failed", "Download failed: could not fetch the URL", { cause: error });
}

async function discard(response: Response): Promise<void> {
  try {
    if (response.body && !response.bodyUsed) await response.body.cancel();
  } catch {
    // Already errored or closed: nothing to release.
  }
}

import { EgressConnectionFailed, egressFetch } from "../net/egress-fetch.ts";
import { EgressRefused, type EgressPolicy, type Resolver } from "../net/egress.ts";

/** What one POST to an endpoint came to. */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  /** The first 1 KB of the response body, as text. */
  bodyExcerpt: string | null;
  durationMs: number;
  /** Why it failed, in the client's terms (never a server path); null on success. */
  error: string | null;
}

export interface SendOptions {
  policy: EgressPolicy;
  resolve?: Resolver;
  /** CA certificates to trust (PEM): the system roots plus the operator's bundle, when one is configured. */
  ca?: string;
  timeoutMs: number;
}

const EXCERPT_BYTES = 1024;

/** Reads at most `limit` bytes of the body, then lets the rest go. */
async function excerpt(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  // Cut at the limit; a multi-byte character split there decodes as U+FFFD, which is fine for a log.
  return new TextDecoder().decode(bytes.subarray(0, limit));
}

/**
 * POSTs one signed event: through the egress guard (the URL is checked again, DNS may have
 * changed, and the connection goes to the checked address), redirects never followed, the whole
 * exchange (connect, answer, the first 1 KB of the body) within `timeoutMs`. 2xx is success.
 */
export async function sendDelivery(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const signal = AbortSignal.timeout(options.timeoutMs);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await egressFetch(url, {
      policy: options.policy,
      resolve: options.resolve,
      method: "POST",
      headers,
      body,
      signal,
      redirect: "manual",
      ...(options.ca ? { ca: options.ca } : {}),
    });
    const text = await excerpt(response, EXCERPT_BYTES);
    const ok = response.status >= 200 && response.status < 300;
    const redirect = response.status >= 300 && response.status < 400;
    return {
      ok,
      status: response.status,
      bodyExcerpt: text || null,
      durationMs: elapsed(),
      error: ok ? null : redirect ? `HTTP ${response.status}: redirects are not followed` : `HTTP ${response.status}`,
    };
  } catch (error) {
    let reason: string;
    if (signal.aborted) reason = `no answer within ${options.timeoutMs / 1000} s`;
    else if (error instanceof EgressRefused) reason = `refused by the address guard: ${error.message}`;
    else if (error instanceof EgressConnectionFailed) reason = `connection failed: ${error.message}`;
    else reason = "connection failed";
    return { ok: false, status: null, bodyExcerpt: null, durationMs: elapsed(), error: reason };
  }
}

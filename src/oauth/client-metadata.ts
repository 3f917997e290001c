import { BodyTooLarge, readBoundedText } from "../net/bounded-body.ts";
import { egressFetch } from "../net/egress-fetch.ts";
import type { EgressPolicy, Resolver } from "../net/egress.ts";
import { redirectUriRefusal } from "./redirect-uris.ts";
import { clientMetadataDocument } from "./schema.ts";

/** A client the server cannot use; the message is safe to show on a page and in an OAuth error. */
export class ClientRefused extends Error {
  override readonly name = "ClientRefused";
}

export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;
/** How long a fetched document is used: its Cache-Control max-age, bounded; one hour without. */
export const DEFAULT_CACHE_MS = 3_600_000;
const MIN_CACHE_MS = 300_000;
const MAX_CACHE_MS = 86_400_000;

export interface FetchedClient {
  name: string;
  redirectUris: string[];
  cacheMs: number;
}

export interface MetadataFetchOptions {
  egress: EgressPolicy;
  resolve?: Resolver;
  /** The certificates to trust (--ca-file with the system roots: net/trust.ts); undefined: the runtime's. */
  ca?: string;
}

/**
 * Whether a client_id is a Client ID Metadata Document URL: https with a path, no fragment, no
 * user info, no dot segments (draft-ietf-oauth-client-id-metadata-document section 3).
 */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://") || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.pathname !== "/" && url.hash === "" && !clientId.includes("#") && url.username === "" && url.password === "" && !/\/\.\.?(\/|$)/.test(clientId.slice(8));
}

function cacheMsOf(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(cacheControl ?? "");
  if (!match) return DEFAULT_CACHE_MS;
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, Number(match[1]) * 1000));
}

/**
 * Fetches and checks a Client ID Metadata Document through the egress guard: ≤ 5 KB, 5 s, no
 * redirects, JSON whose client_id is the URL itself and whose redirect URIs are acceptable.
 */
export async function fetchClientMetadata(clientId: string, options: MetadataFetchOptions): Promise<FetchedClient> {
  let response: Response;
  let text: string;
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  try {
    response = await egressFetch(clientId, { policy: options.egress, resolve: options.resolve, ca: options.ca, redirect: "error", signal, headers: { accept: "application/json" } });
    if (response.status !== 200) throw new ClientRefused(`The client's metadata document answered HTTP ${response.status}.`);
    text = await readBoundedText(response, MAX_DOCUMENT_BYTES);
  } catch (error) {
    if (error instanceof ClientRefused) throw error;
    if (error instanceof BodyTooLarge) throw new ClientRefused(`The client's metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
    // The reason (addresses, TLS details) stays here: the person sees only that it failed.
    throw new ClientRefused("The client's metadata document could not be fetched (refused by this server's egress rules, unreachable, or too slow).");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ClientRefused("The client's metadata document is not JSON.");
  }
  const parsed = clientMetadataDocument.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ClientRefused(`The client's metadata document is not valid: ${issue.path.join(".") || "document"}: ${issue.message}`);
  }
  if (parsed.data.client_id !== clientId) throw new ClientRefused("The client's metadata document names another client_id than its own URL.");
  for (const uri of parsed.data.redirect_uris) {
    const refusal = redirectUriRefusal(uri);
    if (refusal) throw new ClientRefused(`The client's metadata document has a redirect URI this server refuses: ${refusal}.`);
  }
  return { name: parsed.data.client_name ?? new URL(clientId).host, redirectUris: parsed.data.redirect_uris, cacheMs: cacheMsOf(response.headers.get("cache-control")) };
}

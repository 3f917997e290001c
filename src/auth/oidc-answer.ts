/**
 * Reading the OpenID Connect provider's answers (discovery, token endpoint, UserInfo): each
 * through the egress guard, no redirect followed, bounded in size and in time, a failure of any
 * kind a sentence for the sign-in page (SsoRefused) that names the endpoint, never the provider's
 * text or an address.
 */
import { BodyTooLarge, readBoundedText } from "../net/bounded-body.ts";
import { SsoRefused } from "./sso-refused.ts";

/** fetch through the egress guard (net/egress-fetch.ts guardedFetch). */
export type ProviderFetch = (input: string, init: RequestInit) => Promise<Response>;

const MAX_ANSWER_BYTES = 64 * 1024;
const ANSWER_TIMEOUT_MS = 10_000;

export interface ProviderAnswer {
  /** The media type, lower case, without parameters ("" when none was given). */
  mediaType: string;
  text: string;
}

/** A 2xx answer's body, whole and within the bounds (the time covers the body too). */
export async function readProviderAnswer(fetch: ProviderFetch, url: string, init: RequestInit, what: string): Promise<ProviderAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch {
    throw new SsoRefused(`The identity provider's ${what} cannot be reached.`);
  }
  let text: string;
  try {
    text = await readBoundedText(response, MAX_ANSWER_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new SsoRefused(`The identity provider's ${what} answered too much.`);
    throw new SsoRefused(`The identity provider's ${what} did not answer in time.`);
  }
  if (!response.ok) throw new SsoRefused(`The identity provider's ${what} answered ${response.status}.`);
  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  return { mediaType, text };
}

/** The answer as a JSON object. */
export function answerObject(answer: ProviderAnswer, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(answer.text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // below
  }
  throw new SsoRefused(`The identity provider's ${what} did not answer JSON.`);
}

/** A JSON object from the provider (discovery document, token endpoint). */
export async function providerJson(fetch: ProviderFetch, url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
  return answerObject(await readProviderAnswer(fetch, url, init, what), what);
}

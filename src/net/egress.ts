/**
 * Outbound request policy (SSRF guard) for URLs the service fetches on a
 * client's behalf: audio_url downloads now, webhook deliveries later.
 *
 * Default: https only, and every address the host resolves to must be public
 * (see classifyAddress). An operator allowlist (`serve --egress-allow` /
 * VERBATIM_EGRESS_ALLOW, e.g. "10.0.0.0/8,files.internal,127.0.0.1") opens
 * internal hosts for firms whose recordings live on an internal server.
 */
import { lookup } from "node:dns/promises";
import {
  type AddressClass,
  type Cidr,
  type IpAddress,
  cidrContains,
  classifyAddress,
  formatCidr,
  formatIP,
  makeCidr,
  parseCidr,
  parseIP,
} from "./addresses.ts";

/** The allowlist: networks (bare addresses are /32 or /128) and exact host names. */
export interface EgressPolicy {
  cidrs: Cidr[];
  /** Lowercase ASCII (punycode) host names without a trailing dot. */
  hosts: Set<string>;
}

/** Resolves a host name to its addresses (text form). May throw; an empty list counts as unresolvable. */
export type Resolver = (host: string) => Promise<string[]>;

export type EgressRefusalCode = "url_invalid" | "url_not_https" | "address_not_allowed" | "host_unresolvable";

export class EgressRefused extends Error {
  override readonly name = "EgressRefused";
  readonly code: EgressRefusalCode;
  constructor(code: EgressRefusalCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function emptyEgressPolicy(): EgressPolicy {
  return { cidrs: [], hosts: new Set() };
}

/** The system resolver (getaddrinfo: honours /etc/hosts), every address, in the order returned. */
export const defaultResolver: Resolver = async (host) => {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
// The WHATWG URL parser reads a host whose last label is numeric ("10.0.0", "0x7f.1") as IPv4.
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;

function normalizeHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

function parseHostEntry(entry: string): string {
  const bad = (why: string) => new Error(`Invalid egress allowlist entry "${entry}": ${why}`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) {
    throw bad("expected a host name, an IP address or a CIDR such as 10.0.0.0/8, not a URL");
  }
  if (/[:/@?#*\\[\]%]/.test(entry)) {
    if (entry.includes("*")) throw bad("wildcards are not supported; list each host name, or use a CIDR");
    if (entry.includes(":")) throw bad("not a valid IP address, and ports are not part of the allowlist");
    throw bad("not a valid host name, IP address or CIDR");
  }
  let host = entry;
  if (/[^\x00-\x7f]/.test(entry)) {
    // Internationalized name: compare in the punycode form URLs carry.
    try {
      host = new URL(`http://${entry}/`).hostname;
    } catch {
      throw bad("not a valid host name");
    }
  }
  host = normalizeHost(host);
  const labels = host.split(".");
  if (host.length === 0 || host.length > 253 || !labels.every((label) => LABEL.test(label))) {
    throw bad("not a valid host name, IP address or CIDR");
  }
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) {
    throw bad("not a valid IPv4 address (write addresses as four decimal numbers, e.g. 10.0.0.1)");
  }
  return host;
}

/**
 * Parse an allowlist: entries separated by commas and/or whitespace, each an
 * IPv4/IPv6 address, a CIDR ("10.0.0.0/8", "fd00::/8") or an exact host name
 * ("files.internal"). Undefined or blank text gives the empty policy.
 * Throws Error naming the bad entry.
 */
export function parseEgressAllow(text: string | undefined): EgressPolicy {
  const policy = emptyEgressPolicy();
  if (text === undefined) return policy;
  for (const entry of text.split(/[\s,]+/)) {
    if (entry === "") continue;
    if (entry.includes("/") && !/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) {
      const cidr = parseCidr(entry);
      if (!cidr) {
        throw new Error(
          `Invalid egress allowlist entry "${entry}": not a valid CIDR (expected e.g. 10.0.0.0/8 or fd00::/8, prefix at most 32 for IPv4 and 128 for IPv6)`,
        );
      }
      policy.cidrs.push(cidr);
      continue;
    }
    const ip = parseIP(entry);
    if (ip) {
      policy.cidrs.push(makeCidr(ip, ip.family === 4 ? 32 : 128));
      continue;
    }
    policy.hosts.add(parseHostEntry(entry));
  }
  return policy;
}

/** The policy as allowlist text, for logs ("10.0.0.0/8,127.0.0.1/32,files.internal"). */
export function describeEgressPolicy(policy: EgressPolicy): string {
  return [...policy.cidrs.map(formatCidr), ...policy.hosts].join(",");
}

export function isHostAllowed(policy: EgressPolicy, host: string): boolean {
  return policy.hosts.has(normalizeHost(host));
}

export function isAddressAllowed(policy: EgressPolicy, address: IpAddress | string): boolean {
  return policy.cidrs.some((cidr) => cidrContains(cidr, address));
}

/**
 * Check a URL against the policy before fetching it. Call again for every
 * redirect target. Returns the parsed URL and the checked addresses
 * (canonical text, deduplicated; the literal itself for IP hosts).
 *
 * Rules:
 * - The URL must parse, have no userinfo (user:pass@), and use https:.
 * - Every address must be public, or inside an allowed CIDR, or belong to a
 *   host allowed by name. ANY refused address refuses the URL, so a name
 *   answering one public and one private address (a split or rebinding answer)
 *   is refused.
 * - A name on the allowlist may resolve to any address except cloud metadata
 *   endpoints (169.254.169.254, fd00:ec2::254...), which must be allowed
 *   explicitly by address or CIDR.
 * - http: is accepted only for internal hosts: a host allowed by name, or one
 *   whose every address lies inside an allowed CIDR (IP literals included).
 *   Internal file servers often have no TLS certificate, and the operator who
 *   lists them has decided to trust that network path; public hosts always
 *   need https.
 * - IP literals are checked like resolved names. The WHATWG URL parser has
 *   already normalized odd IPv4 forms ("2130706433", "0177.0.0.1", "0x7f.1")
 *   to dotted decimal. Any port is allowed.
 */
export async function checkEgress(
  url: string | URL,
  policy: EgressPolicy,
  resolve: Resolver = defaultResolver,
): Promise<{ url: URL; addresses: string[] }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EgressRefused("url_invalid", "URL is not a valid absolute URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new EgressRefused("url_not_https", `URL scheme ${parsed.protocol.slice(0, -1)} is not allowed; use https`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new EgressRefused("url_invalid", "URL must not contain credentials (user:password@)");
  }
  const host = parsed.hostname;
  if (host === "") throw new EgressRefused("url_invalid", "URL has no host");

  const hostAllowed = isHostAllowed(policy, host);
  const literal = parseIP(host);
  const isHttp = parsed.protocol === "http:";
  const refuseHttp = () =>
    new EgressRefused("url_not_https", `URL scheme http is not allowed for ${host}; use https`);

  // Plain http to a name that no allowlist entry could cover: refuse without a DNS query.
  if (isHttp && !literal && !hostAllowed && policy.cidrs.length === 0) throw refuseHttp();

  let ips: IpAddress[];
  if (literal) {
    ips = [literal];
  } else {
    let answers: string[];
    try {
      answers = await resolve(host);
    } catch (error) {
      throw new EgressRefused("host_unresolvable", `Could not resolve host ${host}`, { cause: error });
    }
    const parsedAnswers = answers.map((answer) => parseIP(answer));
    if (parsedAnswers.length === 0 || parsedAnswers.some((ip) => ip === null)) {
      throw new EgressRefused("host_unresolvable", `Could not resolve host ${host}`);
    }
    ips = parsedAnswers as IpAddress[];
  }

  const addresses = [...new Set(ips.map(formatIP))];
  let everyAddressInCidr = true;
  for (const ip of ips) {
    const inCidr = isAddressAllowed(policy, ip);
    everyAddressInCidr &&= inCidr;
    if (inCidr) continue;
    const kind: AddressClass = classifyAddress(ip);
    if (kind === "public") continue;
    if (hostAllowed && kind !== "metadata") continue;
    // Resolved internal addresses are not echoed for names: the message may reach API clients.
    throw new EgressRefused(
      "address_not_allowed",
      literal
        ? `Address ${formatIP(ip)} is ${describeClass(kind)} address, which is not allowed`
        : `Host ${host} resolves to ${describeClass(kind)} address, which is not allowed`,
    );
  }

  if (isHttp && !hostAllowed && !everyAddressInCidr) throw refuseHttp();
  return { url: parsed, addresses };
}

function describeClass(kind: AddressClass): string {
  switch (kind) {
    case "loopback":
      return "a loopback";
    case "private":
      return "a private";
    case "link_local":
      return "a link-local";
    case "multicast":
      return "a multicast";
    case "metadata":
      return "a cloud metadata";
    case "unspecified":
      return "an unspecified";
    case "reserved":
      return "a reserved";
    case "public":
      return "a public";
  }
}

import { cidrContains, formatIP, parseCidr, parseIP, unmapIP, type Cidr, type IpAddress } from "../net/addresses.ts";

/**
 * The client's address behind the reverse proxies the operator named (--trusted-proxy): only a
 * trusted peer's forwarding header is believed, and only the hops it and the other trusted proxies
 * added. The chain is walked from the right (the hop nearest to us) and the first address that is
 * not a trusted proxy is the client; what lies left of it was written by the client and may be
 * anything. Which header is read is the operator's choice (--trusted-proxy-header): a proxy that
 * writes X-Forwarded-For passes a client's own Forwarded header through untouched, and the other
 * way round, so believing whichever is present would let a client name any address it likes.
 */
export type ForwardingHeader = "x-forwarded-for" | "forwarded";

export interface TrustedProxies {
  networks: Cidr[];
  header: ForwardingHeader;
}

/** "127.0.0.1,10.0.0.0/8,::1,fd00::/8" → networks; throws on an entry that is not an address or CIDR. */
export function parseTrustedProxies(text: string): Cidr[] {
  const networks: Cidr[] = [];
  for (const entry of text.split(",").map((part) => part.trim()).filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`"${entry}" is not an IPv4 or IPv6 address or CIDR (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8)`);
    networks.push(cidr);
  }
  return networks;
}

/** The address hops named by an X-Forwarded-For value, leftmost (the claimed client) first. */
function forwardedForHops(value: string): string[] {
  return value.split(",");
}

/**
 * The `for=` node of each element of an RFC 7239 Forwarded value, leftmost first; "" for an
 * element without one. Quoted strings are honoured (a comma or semicolon inside quotes separates
 * nothing), so a hop cannot be split or hidden by quoting.
 */
export function forwardedElementsFor(value: string): string[] {
  const nodes: string[] = [];
  let node = "";
  let pair = "";
  let quoted = false;
  const endPair = () => {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === "for") node = unquote(pair.slice(eq + 1).trim());
    pair = "";
  };
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (quoted) {
      if (char === "\\" && i + 1 < value.length) pair += char + value[++i];
      else {
        if (char === '"') quoted = false;
        pair += char;
      }
    } else if (char === '"') {
      quoted = true;
      pair += char;
    } else if (char === ";") endPair();
    else if (char === ",") {
      endPair();
      nodes.push(node);
      node = "";
    } else pair += char;
  }
  endPair();
  nodes.push(node);
  return nodes;
}

function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replace(/\\(.)/g, "$1");
  return text;
}

/**
 * One hop as an address: "192.0.2.1", "192.0.2.1:4711", "2001:db8::1", "[2001:db8::1]:4711".
 * Null for what is no address (RFC 7239's "unknown" and obfuscated "_names", garbage).
 */
export function hopAddress(text: string): IpAddress | null {
  const hop = text.trim();
  if (hop.startsWith("[")) {
    const close = hop.indexOf("]");
    if (close < 0) return null;
    const rest = hop.slice(close + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return null;
    return parseIP(hop.slice(1, close));
  }
  const ip = parseIP(hop);
  if (ip) return ip;
  // IPv4 with a port (some proxies add it); an IPv6 address with a port must be bracketed.
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  return v4WithPort ? parseIP(v4WithPort[1]!) : null;
}

/**
 * Returns how the client's address is found for a request whose TCP peer is `peer`. With no
 * trusted proxy the peer is the client and no header is read; the returned function is the
 * identity, so the common path costs nothing.
 */
export function clientAddressResolver(trusted: TrustedProxies | null): (peer: string, headers: Headers) => string {
  if (!trusted || trusted.networks.length === 0) return (peer) => peer;
  const isTrusted = (ip: IpAddress) => trusted.networks.some((network) => cidrContains(network, ip));
  return (peer, headers) => {
    const peerIp = parseIP(peer);
    if (!peerIp || !isTrusted(peerIp)) return peer;
    const value = headers.get(trusted.header);
    if (value === null) return peer;
    const hops = trusted.header === "forwarded" ? forwardedElementsFor(value) : forwardedForHops(value);
    let client = peerIp;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]!);
      // A hop that is no address ends the walk at the last proxy we trust: it alone is known.
      if (!hop) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return formatIP(unmapIP(client));
  };
}

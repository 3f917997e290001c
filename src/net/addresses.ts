/**
 * IP address parsing, CIDR matching and classification, with no dependency.
 *
 * Used by the egress policy (src/net/egress.ts) to decide whether an outbound
 * request (audio_url downloads, later webhooks) may reach an address.
 *
 * Parsing is deliberately strict: IPv4 must be dotted decimal without leading
 * zeros ("010.0.0.1" is ambiguous between octal and decimal and is refused).
 * URL host names never contain such forms because the WHATWG URL parser
 * normalizes "2130706433", "0177.0.0.1" and "0x7f.1" to "127.0.0.1" before we
 * see them; resolver answers are always canonical too.
 */

export type IpFamily = 4 | 6;

/** A parsed address: 4 bytes for IPv4, 16 bytes for IPv6. */
export interface IpAddress {
  readonly family: IpFamily;
  readonly bytes: Uint8Array;
}

/** A network: the address with host bits cleared, and the prefix length. */
export interface Cidr {
  readonly network: IpAddress;
  readonly prefix: number;
}

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link_local"
  | "multicast"
  | "metadata"
  | "unspecified"
  | "reserved";

const IPV4_PART = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Strict dotted-decimal IPv4 ("a.b.c.d", no leading zeros); null when not one. */
export function parseIPv4(text: string): IpAddress | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!IPV4_PART.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return { family: 4, bytes };
}

/**
 * IPv6 in any RFC 4291 text form: full, "::"-compressed, with an embedded
 * dotted IPv4 tail ("::ffff:127.0.0.1", "64:ff9b::10.0.0.1"). A zone id
 * ("fe80::1%eth0", as resolvers may return) is accepted and ignored.
 * Surrounding brackets are not accepted here (see parseIP).
 */
export function parseIPv6(text: string): IpAddress | null {
  const zone = text.indexOf("%");
  if (zone !== -1) {
    if (zone === text.length - 1) return null;
    text = text.slice(0, zone);
  }
  if (text.length === 0 || text.length > 45) return null;

  // An embedded IPv4 tail becomes two hex groups.
  let tail: number[] = [];
  if (text.includes(".")) {
    const lastColon = text.lastIndexOf(":");
    if (lastColon === -1) return null;
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return null;
    const b = v4.bytes;
    tail = [(b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!];
    // Keep the colon so "::1.2.3.4" leaves "::" behind and "1::2:1.2.3.4" leaves "1::2:".
    text = text.slice(0, lastColon + 1);
    if (text.endsWith("::")) {
      // "...::a.b.c.d": the compression marker ends the hex part.
    } else if (text.endsWith(":")) {
      text = text.slice(0, -1);
    }
  }

  const parseGroups = (part: string): number[] | null => {
    if (part === "") return [];
    const groups = part.split(":");
    const out: number[] = [];
    for (const group of groups) {
      if (!HEX_GROUP.test(group)) return null;
      out.push(parseInt(group, 16));
    }
    return out;
  };

  let groups: number[];
  const compression = text.indexOf("::");
  if (compression !== -1) {
    if (text.indexOf("::", compression + 1) !== -1) return null;
    const head = parseGroups(text.slice(0, compression));
    const rest = parseGroups(text.slice(compression + 2));
    if (!head || !rest) return null;
    const present = head.length + rest.length + tail.length;
    // "::" stands for at least one group.
    if (present > 7) return null;
    groups = [...head, ...new Array<number>(8 - present).fill(0), ...rest, ...tail];
  } else {
    const all = parseGroups(text);
    if (!all) return null;
    groups = [...all, ...tail];
    if (groups.length !== 8) return null;
  }

  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return { family: 6, bytes };
}

/** IPv4 or IPv6 (IPv6 optionally in brackets, as URL host names carry it). */
export function parseIP(text: string): IpAddress | null {
  const trimmed = text.trim();
  if (trimmed.startsWith("[") && trimmed.endsWith("]")) return parseIPv6(trimmed.slice(1, -1));
  return parseIPv4(trimmed) ?? parseIPv6(trimmed);
}

export function isIP(text: string): boolean {
  return parseIP(text) !== null;
}

/** Canonical text: dotted decimal, or RFC 5952 IPv6 (lowercase, longest zero run compressed). */
export function formatIP(ip: IpAddress): string {
  const b = ip.bytes;
  if (ip.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((b[i * 2]! << 8) | b[i * 2 + 1]!);
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength && j - i >= 2) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]) => list.map((g) => g.toString(16)).join(":");
  if (bestStart === -1) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

function hasPrefix(bytes: Uint8Array, prefix: readonly number[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** The IPv4 address inside ::ffff:a.b.c.d, or null. */
export function ipv4Mapped(ip: IpAddress): IpAddress | null {
  if (ip.family !== 6) return null;
  if (!hasPrefix(ip.bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return null;
  return { family: 4, bytes: ip.bytes.slice(12) };
}

/** IPv4-mapped IPv6 becomes plain IPv4; everything else is returned as is. */
export function unmapIP(ip: IpAddress): IpAddress {
  return ipv4Mapped(ip) ?? ip;
}

function maskBytes(bytes: Uint8Array, prefix: number): Uint8Array {
  const out = bytes.slice();
  for (let i = 0; i < out.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    out[i] = out[i]! & ((0xff << (8 - bits)) & 0xff);
  }
  return out;
}

/** Build a CIDR, clearing host bits. Throws RangeError on a bad prefix. */
export function makeCidr(ip: IpAddress, prefix: number): Cidr {
  const max = ip.family === 4 ? 32 : 128;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new RangeError(`prefix /${prefix} is out of range for IPv${ip.family} (0-${max})`);
  }
  // A ::ffff:0:0/96-or-longer network is an IPv4 network in disguise.
  const mapped = prefix >= 96 ? ipv4Mapped(ip) : null;
  if (mapped) return { network: { family: 4, bytes: maskBytes(mapped.bytes, prefix - 96) }, prefix: prefix - 96 };
  return { network: { family: ip.family, bytes: maskBytes(ip.bytes, prefix) }, prefix };
}

/** "10.0.0.0/8", "fc00::/7", or a bare address (a /32 or /128). Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const ip = parseIP(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return null;
  if (slash === -1) return makeCidr(ip, ip.family === 4 ? 32 : 128);
  const prefixText = text.slice(slash + 1);
  if (!/^(?:0|[1-9][0-9]{0,2})$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (ip.family === 4 ? 32 : 128)) return null;
  return makeCidr(ip, prefix);
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIP(cidr.network)}/${cidr.prefix}`;
}

/** Whether ip lies inside cidr. IPv4-mapped IPv6 addresses match IPv4 networks. */
export function cidrContains(cidr: Cidr, address: IpAddress | string): boolean {
  const parsed = typeof address === "string" ? parseIP(address) : address;
  if (!parsed) return false;
  const ip = unmapIP(parsed);
  if (ip.family !== cidr.network.family) return false;
  const masked = maskBytes(ip.bytes, cidr.prefix);
  for (let i = 0; i < masked.length; i++) if (masked[i] !== cidr.network.bytes[i]) return false;
  return true;
}

function table(entries: [string, AddressClass][]): [Cidr, AddressClass][] {
  return entries.map(([text, kind]) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`bad built-in CIDR ${text}`);
    return [cidr, kind];
  });
}

// First match wins: more specific entries come first.
const IPV4_TABLE = table([
  ["169.254.169.254/32", "metadata"], // AWS, GCP, Azure, OpenStack... instance metadata
  ["169.254.170.2/32", "metadata"], // AWS ECS task metadata / credentials
  ["255.255.255.255/32", "reserved"], // limited broadcast
  ["0.0.0.0/8", "unspecified"], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "private"], // CGNAT shared address space
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link_local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"], // IETF protocol assignments
  ["192.0.2.0/24", "reserved"], // TEST-NET-1
  ["192.88.99.0/24", "reserved"], // deprecated 6to4 relay anycast
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"], // benchmarking
  ["198.51.100.0/24", "reserved"], // TEST-NET-2
  ["203.0.113.0/24", "reserved"], // TEST-NET-3
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"], // future use (includes broadcast, matched above)
]);

const IPV6_TABLE = table([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fd00:ec2::254/128", "metadata"], // AWS IMDS over IPv6
  ["64:ff9b:1::/48", "private"], // local-use NAT64 (RFC 8215); inside ::/8, so listed first
  ["::/8", "reserved"], // includes deprecated IPv4-compatible ::a.b.c.d; ::ffff:0:0/96 is handled before
  ["100::/64", "reserved"], // discard-only
  ["2001:db8::/32", "reserved"], // documentation
  ["2001::/23", "reserved"], // IETF protocol assignments (Teredo, ORCHID, benchmarking...)
  ["3fff::/20", "reserved"], // documentation (RFC 9637)
  ["fc00::/7", "private"], // unique local
  ["fe80::/10", "link_local"],
  ["fec0::/10", "private"], // deprecated site-local
  ["ff00::/8", "multicast"],
]);

const GLOBAL_UNICAST_V6 = parseCidr("2000::/3")!;
const NAT64_WELL_KNOWN = parseCidr("64:ff9b::/96")!;
const SIX_TO_FOUR = parseCidr("2002::/16")!;

/**
 * Classify an address for egress decisions. Only "public" is reachable by
 * default. Addresses that embed an IPv4 address (IPv4-mapped ::ffff:0:0/96,
 * NAT64 64:ff9b::/96, 6to4 2002::/16) take the class of the embedded address.
 * IPv6 outside 2000::/3 that is not otherwise listed is "reserved".
 * Throws TypeError when the text is not an IP address.
 */
export function classifyAddress(address: IpAddress | string): AddressClass {
  const ip = typeof address === "string" ? parseIP(address) : address;
  if (!ip) throw new TypeError(`not an IP address: ${JSON.stringify(address)}`);
  if (ip.family === 4) {
    for (const [cidr, kind] of IPV4_TABLE) if (cidrContains(cidr, ip)) return kind;
    return "public";
  }
  const mapped = ipv4Mapped(ip);
  if (mapped) return classifyAddress(mapped);
  if (cidrContains(NAT64_WELL_KNOWN, ip)) return classifyAddress({ family: 4, bytes: ip.bytes.slice(12) });
  if (cidrContains(SIX_TO_FOUR, ip)) return classifyAddress({ family: 4, bytes: ip.bytes.slice(2, 6) });
  for (const [cidr, kind] of IPV6_TABLE) if (cidrContains(cidr, ip)) return kind;
  if (!cidrContains(GLOBAL_UNICAST_V6, ip)) return "reserved";
  return "public";
}

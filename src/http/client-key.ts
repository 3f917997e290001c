import { formatCidr, makeCidr, parseIP, unmapIP } from "../net/addresses.ts";

/**
 * The key anonymous requests are counted under. One IPv6 host usually holds a whole /64 (SLAAC,
 * privacy addresses), so counting per address would give it 2^64 windows: IPv6 clients share one
 * window per /64. IPv4 (and IPv4-mapped IPv6) counts per address.
 */
export function anonymousClientKey(address: string): string {
  const ip = parseIP(address);
  if (!ip) return `ip:${address}`;
  const plain = unmapIP(ip);
  if (plain.family === 4) return `ip:${formatCidr(makeCidr(plain, 32))}`;
  return `ip:${formatCidr(makeCidr(plain, 64))}`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Bytes from the CSPRNG, drawn 4 KiB at a time and each used once: a getRandomValues call per id
// cost more than the rest of a GET /v1/me request's id, limiter and headers together (bench/api.ts).
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniform random base62 string: rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Opaque random identifier such as job_4fGh..., used where the spec gives no numeric form. */
export function randomId(prefix: string, length = 24): string {
  return `${prefix}_${randomBase62(length)}`;
}

/** Sequential identifier such as cli_12, for the resources the spec numbers (clients, participants). */
export function numericId(prefix: string, n: number): string {
  return `${prefix}_${n}`;
}

export function parseNumericId(prefix: string, id: string): number | null {
  const match = new RegExp(`^${prefix}_(\\d{1,15})$`).exec(id);
  return match ? Number(match[1]) : null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * The one UUID check of the code (a meeting id in a path, before it reaches the database): RFC 9562
 * versions 1 to 8, either case. The API's schemas say the same with zod's z.uuid().
 */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * A webhook receiver that verifies Verbatim's signatures, as a client would write one (SPEC 6,
 * Signature verification): HMAC-SHA256 over "<t>.<raw body>" with the whole secret as key, hex,
 * compared in constant time with each v1 value of the header, refused when t is more than 300 s
 * away, deduplicated on Verbatim-Event-Id. Written from the specification, apart from the signer.
 *
 *   WEBHOOK_SECRET=whsec_... bun scripts/webhook-receiver.ts [--port 9000]
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const TOLERANCE_SECONDS = 300;

/** Whether the header signs this raw body with one of the secrets, at a time within the tolerance. */
export function verifySignature(rawBody: string, header: string | null, secrets: readonly string[], nowSeconds = Date.now() / 1000): boolean {
  if (!header) return false;
  const parts = header.split(",").map((part) => part.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  const candidates = parts.filter(([k, v]) => k === "v1" && v && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => Buffer.from(v!, "hex"));
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > TOLERANCE_SECONDS || !candidates.length) return false;
  return secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest();
    return candidates.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
  });
}

if (import.meta.main) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error("set WEBHOOK_SECRET to the endpoint's secret (whsec_...)");
  const portIndex = process.argv.indexOf("--port");
  const seen = new Set<string>();
  const server = Bun.serve({
    port: portIndex > 0 ? Number(process.argv[portIndex + 1]) : 9000,
    async fetch(request) {
      const raw = await request.text(); // the raw body, before any JSON parsing
      if (!verifySignature(raw, request.headers.get("verbatim-signature"), [secret])) return new Response("bad signature", { status: 400 });
      const eventId = request.headers.get("verbatim-event-id") ?? "";
      if (seen.has(eventId)) return new Response("duplicate, ignored");
      seen.add(eventId);
      const event = JSON.parse(raw) as { type: string; data: { object: { id?: string; status?: string } } };
      console.log(`${event.type} ${eventId} ${event.data.object.id ?? ""} ${event.data.object.status ?? ""}`);
      return new Response("ok");
    },
  });
  console.log(`listening on ${server.url}`);
}

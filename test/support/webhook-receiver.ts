// An HTTPS webhook receiver on loopback for tests, with the test certificate for 127.0.0.1.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const TLS_DIR = join(import.meta.dir, "..", "fixtures", "tls");
export const LOOPBACK_CA_FILE = join(TLS_DIR, "loopback.cert.pem");
export const LOOPBACK_CA = readFileSync(LOOPBACK_CA_FILE, "utf8");

export interface Received {
  headers: Headers;
  body: string;
  path: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How the receiver answers from now on (default 200 "ok"). */
  answer(respond: (request: Request) => Response | Promise<Response>): void;
  /** The most requests it held unanswered at once: overall, and by path (one endpoint each). */
  peakOpen: { overall: number; byPath: Map<string, number> };
  /** Resolves once `count` requests arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  stop(): void;
}

export function startReceiver(): Receiver {
  const received: Received[] = [];
  let respond: (request: Request) => Response | Promise<Response> = () => new Response("ok");
  const open = { overall: 0, byPath: new Map<string, number>() };
  const peakOpen = { overall: 0, byPath: new Map<string, number>() };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: LOOPBACK_CA, key: readFileSync(join(TLS_DIR, "loopback.key.pem"), "utf8") },
    idleTimeout: 60,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      open.overall++;
      open.byPath.set(path, (open.byPath.get(path) ?? 0) + 1);
      peakOpen.overall = Math.max(peakOpen.overall, open.overall);
      peakOpen.byPath.set(path, Math.max(peakOpen.byPath.get(path) ?? 0, open.byPath.get(path)!));
      try {
        received.push({ headers: request.headers, body: await request.clone().text(), path });
        return await respond(request);
      } finally {
        open.overall--;
        open.byPath.set(path, open.byPath.get(path)! - 1);
      }
    },
  });
  return {
    url: `https://127.0.0.1:${server.port}`,
    received,
    peakOpen,
    answer: (next) => (respond = next),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} of ${count} requests`);
        await Bun.sleep(20);
      }
      return received.slice(0, count);
    },
    stop: () => server.stop(true),
  };
}

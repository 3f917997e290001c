/**
 * The baseline of bench/api.ts: an Elysia hello-world on Bun, answering GET /api/v1/me with a
 * small fixed JSON body and nothing else (no auth, no limiter, no log, no metrics). Prints its URL.
 *
 *   bun bench/lib/hello-elysia.ts
 */
import { Elysia } from "elysia";

const app = new Elysia().get("/api/v1/me", () => ({ object: "account", hello: "world" })).listen({ hostname: "127.0.0.1", port: 0 });
console.log(`listening on http://127.0.0.1:${app.server!.port}`);

import { access, defineRoute } from "../http/route.ts";
import { ApiError } from "../errors/api-error.ts";
import { sameSecret } from "../lib/same-secret.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Constant-time comparison of the Authorization header with the expected bearer token. */
function bearerMatches(header: string | null, token: string): boolean {
  return sameSecret(header, `Bearer ${token}`);
}

/**
 * GET /metrics for Prometheus, outside /api. With --metrics-token it needs that bearer token
 * (the scraper's, not an API key); without, it is open to whoever reaches the port, like /healthz.
 */
export function metricsRoutes(deps: { metrics: ServiceMetrics; token: string | null }) {
  return [
    defineRoute({
      method: "GET",
      path: "/metrics",
      operationId: "metrics",
      summary: "Prometheus metrics (text exposition format); needs the --metrics-token bearer when one is set",
      tag: "Health",
      access: access.public,
      responses: { 200: { description: "Metrics, text/plain; version=0.0.4" } },
      handle: async ({ request }) => {
        if (deps.token && !bearerMatches(request.headers.get("authorization"), deps.token)) {
          throw new ApiError("unauthorized", "GET /metrics needs the metrics bearer token (--metrics-token).");
        }
        const { body, contentType } = await deps.metrics.render();
        return new Response(body, { headers: { "Content-Type": contentType } });
      },
    }),
  ];
}

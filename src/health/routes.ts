import { z } from "zod";
import { access, defineRoute } from "../http/route.ts";
import { SERVICE_VERSION } from "../version.ts";
import { runChecks, type ReadinessCheck } from "./readiness.ts";

export function healthRoutes(deps: { checks: ReadinessCheck[] }) {
  return [
    defineRoute({
      method: "GET",
      path: "/healthz",
      operationId: "liveness",
      summary: "Liveness: the process answers",
      tag: "Health",
      access: access.public,
      responses: { 200: { description: "Alive", schema: z.object({ status: z.literal("ok"), version: z.string() }) } },
      handle: () => ({ status: 200, body: { status: "ok", version: SERVICE_VERSION } }),
    }),
    defineRoute({
      method: "GET",
      path: "/readyz",
      operationId: "readiness",
      summary: "Readiness: database open, migrations applied, engines reported",
      tag: "Health",
      access: access.public,
      responses: {
        200: { description: "Ready to serve (engines may still be degraded)" },
        503: { description: "Not ready: the database or its migrations are not in order" },
      },
      handle: async () => {
        const report = await runChecks(deps.checks);
        return { status: report.ready ? 200 : 503, body: report };
      },
    }),
  ];
}

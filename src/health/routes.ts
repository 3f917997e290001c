import { z } from "zod";
import { access, defineRoute } from "../http/route.ts";
import { SERVICE_VERSION } from "../lib/version.ts";
import { runChecks, type ReadinessCheck } from "./readiness.ts";

const readinessSchema = z.object({
  status: z.enum(["ready", "degraded", "not_ready"]),
  ready: z.boolean(),
  checks: z
    .record(z.string(), z.object({ ready: z.boolean(), detail: z.string(), required: z.boolean() }))
    .optional()
    .meta({ description: "Each check with its detail; present only when the request carries a valid credential." }),
});

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
      summary: "Readiness: database open, migrations applied, engines reported (each check's details only with a credential)",
      tag: "Health",
      access: access.public,
      responses: {
        200: { description: "Ready to serve (engines may still be degraded)", schema: readinessSchema },
        503: { description: "Not ready: the database or its migrations are not in order", schema: readinessSchema },
      },
      handle: async ({ principal }) => {
        const report = await runChecks(deps.checks);
        // Anonymous callers (load balancers, anyone who can reach the port) learn only whether
        // the service is ready: model names, versions and failure details are for operators.
        const body = principal ? report : { status: report.status, ready: report.ready };
        return { status: report.ready ? 200 : 503, body };
      },
    }),
  ];
}

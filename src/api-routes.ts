import { accountRoutes } from "./account/routes.ts";
import { clientRoutes } from "./clients/routes.ts";
import type { Conn } from "./db/conn.ts";
import { docsRoutes } from "./docs/routes.ts";
import { documentRoutes } from "./documents/routes.ts";
import { exportRoutes } from "./exports/routes.ts";
import { feedbackApp } from "./feedback/app.ts";
import { feedbackRoutes } from "./feedback/routes.ts";
import { healthRoutes } from "./health/routes.ts";
import { SlidingWindowLimiter } from "./http/rate-limit.ts";
import type { RouteDef } from "./http/route.ts";
import { jobRoutes } from "./jobs/routes.ts";
import type { Clock } from "./lib/time.ts";
import { redactionRoutes } from "./meetings/redaction-routes.ts";
import { meetingRoutes } from "./meetings/routes.ts";
import { metricsRoutes } from "./metrics/routes.ts";
import { REGISTRATIONS_PER_HOUR } from "./oauth/app.ts";
import { RegistrationLimit } from "./oauth/registration-limit.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { reportRoutes } from "./reports/routes.ts";
import { retentionRoutes } from "./retention/routes.ts";
import { templateRoutes } from "./templates/routes.ts";
import { transcriptRoutes } from "./transcripts/routes.ts";
import { usageRoutes } from "./usage/routes.ts";
import { vocabularyRoutes } from "./vocabulary/routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";

type Deps<F extends (deps: never) => unknown> = Parameters<F>[0];

/** What the API's routes are built over: the composition root's use cases and settings (service.ts). */
export interface ApiRouteDeps {
  conn: Conn;
  clock: Clock;
  /** Read once listening: the public URL needs the real port. */
  urls: { readonly api: string; readonly docs: string };
  checks: Deps<typeof healthRoutes>["checks"];
  metrics: Deps<typeof metricsRoutes>["metrics"];
  metricsToken: Deps<typeof metricsRoutes>["token"];
  billing: Deps<typeof usageRoutes>["billing"];
  oauthServer: { cimd: boolean; dcr: boolean };
  apps: {
    clients: Deps<typeof clientRoutes>["clients"];
    retention: Deps<typeof retentionRoutes>["retention"];
    usage: Deps<typeof usageRoutes>["usage"];
    oauth: Deps<typeof oauthRoutes>["oauth"];
    jobs: Deps<typeof jobRoutes>["jobs"];
    meetings: Deps<typeof meetingRoutes>["meetings"] & Deps<typeof redactionRoutes>["meetings"];
    transcripts: Deps<typeof transcriptRoutes>;
    templates: Deps<typeof templateRoutes>;
    exports: Deps<typeof exportRoutes>;
    reports: Deps<typeof reportRoutes>;
    webhooks: Deps<typeof webhookRoutes>["webhooks"];
    vocabulary: Deps<typeof vocabularyRoutes>["vocabulary"];
    documents: Deps<typeof documentRoutes>;
  };
}

/**
 * Every route the API serves, each domain's routes.ts over its use cases, in one list: the router
 * matches in this order, and the OpenAPI document (docs/routes.ts) is generated from this list.
 */
export function apiRoutes(deps: ApiRouteDeps): RouteDef[] {
  const { apps, urls } = deps;
  const routes: RouteDef[] = [];
  routes.push(
    ...healthRoutes({ checks: deps.checks }),
    ...metricsRoutes({ metrics: deps.metrics, token: deps.metricsToken, failures: new SlidingWindowLimiter(), clock: deps.clock }),
    ...docsRoutes({
      get apiUrl() {
        return urls.api;
      },
      get docsUrl() {
        return urls.docs;
      },
      allRoutes: () => routes,
    }),
    ...accountRoutes(),
    ...feedbackRoutes({ feedback: feedbackApp({ conn: deps.conn, clock: deps.clock }) }),
    ...clientRoutes({ clients: apps.clients }),
    ...retentionRoutes({ retention: apps.retention }),
    ...jobRoutes({ jobs: apps.jobs }),
    ...meetingRoutes({ meetings: apps.meetings }),
    ...redactionRoutes({ meetings: apps.meetings }),
    ...transcriptRoutes(apps.transcripts),
    ...templateRoutes(apps.templates),
    ...exportRoutes(apps.exports),
    ...reportRoutes(apps.reports),
    ...usageRoutes({ usage: apps.usage, billing: deps.billing }),
    ...webhookRoutes({ webhooks: apps.webhooks }),
    ...vocabularyRoutes({ vocabulary: apps.vocabulary }),
    ...oauthRoutes({ oauth: apps.oauth, cimd: deps.oauthServer.cimd, dcr: deps.oauthServer.dcr, registrations: new RegistrationLimit(REGISTRATIONS_PER_HOUR), now: () => deps.clock.now() }),
    ...documentRoutes(apps.documents),
  );
  return routes;
}

import type { AuditTrail } from "./audit/types.ts";
import type { ServiceConfig } from "./config.ts";
import type { Conn } from "./db/conn.ts";
import type { WalTruncation } from "./db/wal-truncation.ts";
import { documentsApp } from "./documents/app.ts";
import { documentRenderer } from "./documents/renderer.ts";
import { announcedDuration } from "./engines/recording-duration.ts";
import { exportsApp } from "./exports/app.ts";
import type { IdempotencyStore } from "./idempotency/service.ts";
import { jobsApp } from "./jobs/app.ts";
import type { JobQueue } from "./jobs/pg-boss-store.ts";
import type { JobControl } from "./jobs/scheduler.ts";
import type { Clock } from "./lib/time.ts";
import { meetingsApp } from "./meetings/app.ts";
import { loadMeetingMaterial } from "./meetings/document-material-store.ts";
import { MAX_UPLOAD_BYTES } from "./meetings/receive.ts";
import { reportsApp } from "./reports/app.ts";
import type { Storage } from "./storage/storage.ts";
import { templatesApp } from "./templates/app.ts";
import type { TemplateCatalogue } from "./templates/catalogue.ts";
import { transcriptsApp } from "./transcripts/app.ts";
import { UploadsInFlight } from "./uploads/in-flight.ts";
import { vocabularyApp } from "./vocabulary/app.ts";
import { webhooksApp } from "./webhooks/app.ts";
import { PingThrottle } from "./webhooks/ping.ts";

/** What the application layer is built over: the service's database, files, queue and settings. */
export interface ApplicationDeps {
  conn: Conn;
  wal: WalTruncation;
  storage: Storage;
  clock: Clock;
  config: Pick<ServiceConfig, "parallelSlots" | "billing" | "egress" | "minFreeDisk" | "drafts" | "ffmpegPath" | "cjkFontPath">;
  idempotency: IdempotencyStore;
  templates: TemplateCatalogue;
  /** Where a queued job is announced to the workers. */
  jobQueue: JobQueue;
  /** What the use cases call after queueing a job or to cancel one (this node's scheduler, or the database alone). */
  jobs: JobControl;
  /** The webhook delivery thread, woken when a delivery is due now. */
  webhooks: { sendNow(deliveryId: string): void; wake(): void };
  audit: AuditTrail;
  publicApiUrl(): string;
}

/**
 * The domains' use cases that the API's routes, the web app's pages and the MCP server all call,
 * each built once (the composition root, service.ts, adds the account-side ones it also needs for
 * authentication and administration). One cap on uploads in progress, one renderer and one
 * duration probe are shared by the API and the web app.
 */
export function buildApplication(deps: ApplicationDeps) {
  const { conn, wal, storage, clock, config, idempotency, templates, jobQueue, jobs, audit } = deps;
  const meetings = meetingsApp({
    conn,
    wal,
    storage,
    clock,
    slots: config.parallelSlots,
    billing: config.billing,
    idempotency,
    egress: config.egress,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    minFreeDisk: config.minFreeDisk,
    drafts: config.drafts,
    uploads: new UploadsInFlight(),
    measureRecording: announcedDuration(config.ffmpegPath),
    templates,
    publicApiUrl: deps.publicApiUrl,
    jobQueue,
    scheduler: jobs,
    audit,
  });
  return {
    meetings,
    documents: documentsApp({
      conn,
      storage,
      clock,
      slots: config.parallelSlots,
      billing: config.billing,
      templates,
      idempotency,
      loadMaterial: loadMeetingMaterial,
      render: documentRenderer({ cjkFontPath: config.cjkFontPath }),
      jobQueue,
      scheduler: jobs,
      audit,
    }),
    // The transcript, report and export rows are the meeting's: their use cases load them through meetings'.
    transcripts: transcriptsApp({ loadOwnedTranscript: meetings.transcript, correctSegment: meetings.correctSegment, undoCorrection: meetings.undoCorrection, listCorrections: meetings.corrections, audit }),
    reports: reportsApp({ loadOwnedReport: meetings.report, audit }),
    exports: exportsApp({ loadOwnedExportInput: meetings.exportInput, audit }),
    templates: templatesApp(templates),
    webhooks: webhooksApp({ conn, clock, egress: config.egress, idempotency, wal, dispatcher: deps.webhooks, pings: new PingThrottle(), audit }),
    vocabulary: vocabularyApp({ conn, clock }),
    jobs: jobsApp({ conn }),
  };
}

export type Application = ReturnType<typeof buildApplication>;

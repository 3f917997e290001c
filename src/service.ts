import { readFileSync } from "node:fs";
import { AccessTokens } from "./auth/access-tokens.ts";
import { Authenticator } from "./auth/authenticate.ts";
import { createApiKey } from "./auth/api-key-store.ts";
import { purgeExpiredRevocations } from "./auth/revocation-store.ts";
import { SCOPES } from "./auth/scopes.ts";
import { loadOrCreateSigningKey, signingKeyDirOf } from "./auth/signing-key.ts";
import { addFirstUser } from "./auth/user-store.ts";
import { apiRoutes } from "./api-routes.ts";
import { adminApp } from "./admin/app.ts";
import { authApp } from "./auth/app.ts";
import { clientsApp } from "./clients/app.ts";
import { buildApplication } from "./application.ts";
import type { ServiceConfig } from "./config.ts";
import { withTx, type DbConn, type TxConn } from "./db/conn.ts";
import { openServiceConn } from "./db/open.ts";
import { WalTruncator } from "./db/wal-truncation.ts";
import { migrateConn } from "./db/migrate.ts";
import { databasePath } from "./db/paths.ts";
import { databaseCheck, ffmpegCheck, migrationsCheck, modelsCheck, workersCheck } from "./health/readiness.ts";
import { Scheduler, type JobControl } from "./jobs/scheduler.ts";
import { jobsRunElsewhere } from "./jobs/elsewhere.ts";
import { JOBS_TABLE_QUEUE, PgBossQueue, type JobQueue } from "./jobs/pg-boss-store.ts";
import { NodePresence } from "./nodes/heartbeat.ts";
import { liveNodeCount } from "./nodes/store.ts";
import { meetingProcessingJob } from "./meetings/processing-job.ts";
import { documentGenerationJob } from "./documents/generation-job.ts";
import { WorkerPool } from "./jobs/worker-pool.ts";
import { IdempotencyStore } from "./idempotency/service.ts";
import { meetingProcessing } from "./meetings/processing.ts";
import { liveTranscription, liveTranscriptionJob } from "./meetings/live-transcript.ts";
import { loadMeetingMaterial } from "./meetings/document-material-store.ts";
import { documentGeneration } from "./documents/generation.ts";
import { purgeOldDeliveries } from "./webhooks/delivery-store.ts";
import { DeliveryThread } from "./webhooks/delivery-host.ts";
import { usageMeter } from "./usage/meter-store.ts";
import { createServiceMetrics } from "./metrics/service-metrics.ts";
import { usageApp } from "./usage/app.ts";
import { trustedCertificates } from "./net/trust.ts";
import { STAND_IN_WARNING, standInModels } from "./models/catalogue.ts";
import { allMeetingIds } from "./meetings/list-store.ts";
import { BUILTIN_TEMPLATES } from "./templates/builtin.generated.ts";
import { loadTemplateCatalogue } from "./templates/catalogue.ts";
import { MAX_UPLOAD_BYTES } from "./meetings/receive.ts";
import { MAX_REQUEST_BODY_SIZE } from "./uploads/limits.ts";
import { lockDataDir } from "./db/data-dir-lock.ts";
import { restrictToOwner } from "./storage/permissions.ts";
import { STALE_UPLOAD_MS, startRetention } from "./storage/retention.ts";
import { SignInThrottle } from "./auth/sign-in-throttle.ts";
import { PasswordAttempts } from "./auth/password-attempts.ts";
import { PasswordVerifications } from "./auth/password-verifications.ts";
import { clientAddressResolver } from "./http/client-address.ts";
import { auditApp } from "./audit/app.ts";
import { BatchedAuditTrail } from "./audit/trail.ts";
import { appendAuditEntries } from "./audit/store.ts";
import { systemEntry } from "./audit/types.ts";
import { purgeExpiredWebSessions } from "./auth/web-session-store.ts";
import { createWebApp, isWebPath } from "./web/routes.tsx";
import { MCP_PATH, mcpEndpoint } from "./mcp/server.ts";
import { SERVICE_VERSION } from "./lib/version.ts";
import { DEFAULT_REFRESH_TTL_SECONDS, oauthApp, oauthResources } from "./oauth/app.ts";
import { OidcSignIn } from "./auth/oidc-sign-in.ts";
import { renameLegacyRecordings, sweepOrphans } from "./storage/sweep.ts";
import { localDiskStorage } from "./storage/local-disk.ts";
import { recordUntrackedDraftParts, sweepIdleDrafts } from "./meetings/draft-upkeep.ts";
import { sweepRetention, type RetentionCutEvent } from "./meetings/retention-sweep.ts";
import { retentionApp } from "./retention/app.ts";
import { sharingApp } from "./sharing/app.ts";
import { exclusively } from "./db/sql.ts";
import { workerCommand } from "./worker/command.ts";
import { WORKER_CONFIG_ENV, type WorkerConfig } from "./worker/config.ts";
import { LiveApiNodes, SlidingWindowLimiter, splitLimits } from "./http/rate-limit.ts";
import { RequestLog, stdoutSink } from "./http/request-log.ts";
import { createPipeline } from "./http/pipeline.ts";
import { createRouter } from "./http/router.ts";
import { childEnvironment } from "./lib/child-env.ts";
import { systemClock, type Clock } from "./lib/time.ts";

export interface RunningService {
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export interface ServiceIo {
  /** Lines for the operator (listening URL, the bootstrap key). */
  say(line: string): void;
  /** Unexpected failures, with the request they happened in. */
  logError(error: unknown, requestId: string): void;
  /** Expected trouble the operator should know of (a client gone mid-upload, a full disk). */
  logWarning(message: string, requestId: string): void;
}

/** The first start on an empty data dir makes an admin with an all-scopes key, shown once. */
async function bootstrapAdmin(conn: DbConn, io: ServiceIo): Promise<void> {
  // Several nodes starting at once on an empty PostgreSQL database: addFirstUser's lock lets one
  // of them make the administrator, and its key in the same transaction (a node that dies between
  // the two leaves neither); the others then find a user and make none.
  const key = await withTx(conn, async (tx) => {
    const user = await addFirstUser(tx, { email: "admin@localhost", name: "Administrator", plan: "pro", role: "admin" });
    if (!user) return undefined;
    return (await createApiKey(tx, { userId: user.id, name: "bootstrap", scopes: [...SCOPES] })).key;
  });
  if (!key) return;
  io.say(`Created user admin@localhost with an all-scopes API key. It is shown only this once:`);
  io.say(`  ${key}`);
}

/** One year, the usual value; no includeSubDomains: other services of the firm may share the domain. */
const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startService(config: ServiceConfig, io: ServiceIo, clock: Clock = systemClock): Promise<RunningService> {
  const lock = lockDataDir(config.dataDir);
  const loosened = restrictToOwner(config.dataDir);
  if (loosened) io.say(`warning: ${loosened} file(s) or folder(s) of the data dir were readable by other users; made owner-only`);
  // The database as stores take it (db/conn.ts): the only handle on it the service holds.
  const conn = openServiceConn(config.dataDir, config.database);
  const clients = clientsApp({ conn, now: () => clock.now() });
  const retention = retentionApp({ conn, clock });
  const usage = usageApp({ conn, clock, billing: config.billing });
  await migrateConn(conn);
  // The audit trail: use cases record into memory, batches are written every 250 ms (audit/trail.ts).
  const audit = new BatchedAuditTrail({ conn, clock, onError: (error) => io.logError(error, "audit-trail") });
  const auditing = auditApp({ conn, retentionMs: config.auditRetentionMs });
  // This process as a node of the cluster (one, on SQLite): its id names the jobs it runs.
  const node = new NodePresence(conn, config.role, clock, io.say, config.dataDir);
  await node.start();
  const runsJobs = config.role !== "api";
  const servesHttp = config.role !== "worker";
  // Deletions truncate the WAL, which keeps the deleted content's earlier frames otherwise.
  const wal = new WalTruncator(conn, io.say);
  await bootstrapAdmin(conn, io);
  const idempotency = new IdempotencyStore(conn, clock, { inProgressLeaseMs: config.idempotencyLeaseSeconds * 1000 });
  await idempotency.recover();
  // Meetings' files, on the folder every node mounts (the data dir unless --storage-dir).
  const storage = localDiskStorage(config.storageDir);
  if (config.storageDir !== config.dataDir) {
    const loosenedFiles = restrictToOwner(config.storageDir);
    if (loosenedFiles) io.say(`warning: ${loosenedFiles} file(s) or folder(s) of the storage dir were readable by other users; made owner-only`);
  }
  renameLegacyRecordings(config.storageDir);
  const meetingIds = await allMeetingIds(conn);
  const swept = sweepOrphans(config, (id) => meetingIds.has(id), STALE_UPLOAD_MS);
  if (swept.tmpFiles || swept.meetingDirs) io.say(`Removed ${swept.tmpFiles} partial upload(s) and ${swept.meetingDirs} orphan meeting folder(s)`);
  // Drafts begun before the draft_parts table: their parts are recorded from their folders, once.
  const draftParts = await recordUntrackedDraftParts(conn, storage, clock.now());
  if (draftParts) io.say(`Recorded ${draftParts} part(s) of drafts stored before this version`);
  // The public URL needs the real port, known only once listening; routes read it lazily.
  let publicUrl = config.publicUrl ?? "";
  const signingKey = await loadOrCreateSigningKey(signingKeyDirOf({ dataDir: config.dataDir, storageDir: config.storageDir, shared: config.database !== undefined }));
  // The IdP's JWKS is fetched under the same egress guard as audio_url; why a fetch failed goes to the log.
  const accessTokens = new AccessTokens(config.oauth, signingKey, {
    egress: config.egress,
    log: (error) => io.logError(error, "oauth-jwks"),
    // The built-in authorization server binds its tokens to these resources (RFC 8707).
    resources: () => oauthResources(publicUrl),
  });
  // The built-in OAuth 2.1 authorization server (issue 24): its tokens name their grant, which the
  // authenticator checks (≤ 1 s cache), so a revocation stops them on every node within a second.
  const oauth = oauthApp({
    conn,
    clock,
    audit,
    tokens: accessTokens,
    publicUrl: () => publicUrl,
    settings: { ...config.oauthServer, refreshTtlSeconds: DEFAULT_REFRESH_TTL_SECONDS },
    egress: config.egress,
    ca: trustedCertificates(config.caFile),
  });
  const authenticator = new Authenticator(conn, accessTokens, clock, (grantId) => oauth.grantIsLive(grantId));
  const requestLog = config.logRequests ? new RequestLog(stdoutSink()) : undefined;
  requestLog?.start();

  const urls = {
    get api() {
      return `${publicUrl}/api`;
    },
    get docs() {
      return `${publicUrl}/docs`;
    },
  };

  const checks = [
    databaseCheck(conn),
    migrationsCheck(conn),
    ffmpegCheck(config.ffmpegPath),
    modelsCheck(config.engineSettings),
    // On PostgreSQL the workers may be other machines: how many answer (on SQLite, this process).
    ...(config.database ? [workersCheck(conn, clock)] : []),
  ];
  const workerConfig: WorkerConfig = {
    ...config.engineSettings,
    engines: config.engines,
    ffmpegPath: config.ffmpegPath,
    egressAllow: config.egressAllowText,
    maxDownloadBytes: MAX_UPLOAD_BYTES,
    downloadTimeoutMs: config.downloadTimeoutSeconds * 1000,
    maxDurationSeconds: config.maxDurationSeconds,
    minFreeDisk: config.minFreeDisk,
  };
  // Checked here, so a bad --ca-file stops the start with a clear message.
  trustedCertificates(config.caFile);
  const webhooks = new DeliveryThread(
    {
      databasePath: databasePath(config.dataDir),
      databaseUrl: config.database?.url,
      owner: node.id,
      previousOwner: node.previousId,
      egressAllow: config.egressAllowText,
      caFile: config.caFile,
      smtp: config.smtp,
    },
    io.say,
  );
  const templates = loadTemplateCatalogue({ builtin: BUILTIN_TEMPLATES, customDir: config.templatesDir, log: io.say });
  const meter = usageMeter(config.billing);
  // On PostgreSQL, pg-boss carries each queued job to a worker node (a queue per kind); on SQLite
  // the jobs table is the queue. Worker nodes also run pg-boss's maintenance (expiry, retries).
  const boss = config.database
    ? new PgBossQueue({ url: config.database.url, supervise: runsJobs, log: (line) => io.logError(new Error(line), "job-queue") })
    : undefined;
  await boss?.start([meetingProcessingJob.kind, documentGenerationJob.kind, liveTranscriptionJob.kind]);
  const jobQueue: JobQueue = boss ?? JOBS_TABLE_QUEUE;
  const pool = new WorkerPool({
    size: config.workers,
    command: workerCommand(),
    // An allowlist of the service's environment (no SSO secret, SMTP URL, metrics token, ...),
    // what the operator passes with --worker-env, and the worker's configuration.
    env: childEnvironment(process.env, config.workerEnv, { [WORKER_CONFIG_ENV]: JSON.stringify(workerConfig) }),
    // As long to load the models as a step gets to run, and at least 10 minutes: a large model
    // read from a network disk takes minutes, and a short --stage-timeout is meant for steps.
    startTimeoutMs: Math.max(config.stageTimeoutSeconds, 600) * 1000,
    log: (line) => io.logError(new Error(line), "scheduler"),
    announce: (line) => io.say(line),
  });
  const metrics = createServiceMetrics({ conn, now: () => clock.now(), workers: () => pool.stats(), webhooks: () => webhooks.counters });
  const scheduler = new Scheduler({
    conn,
    pool,
    kinds: [
      meetingProcessing({ storage, publicApiUrl: () => urls.api, templates, meter, billing: config.billing, jobQueue }),
      documentGeneration({ storage, loadMaterial: loadMeetingMaterial, meter }),
      liveTranscription({ storage, jobQueue }),
    ],
    owner: node.id,
    previousOwner: node.previousId,
    feed: boss,
    clock,
    stepTimeoutMs: config.stageTimeoutSeconds * 1000,
    maxStepAttempts: 3,
    privatePaths: [...new Set([config.dataDir, config.storageDir])],
    log: (line) => io.say(line),
    onStepFinished: (kind, step, outcome, seconds) => metrics.observeStep(kind, step, outcome, seconds),
  });
  // What the use cases call after queueing a job or to cancel one: this node's scheduler where it
  // runs jobs; on an API node, the database alone (the worker node running a canceled job stops
  // its step when it next renews its claim, within seconds).
  const jobs: JobControl = runsJobs ? scheduler : jobsRunElsewhere(conn, clock);

  // The application layer both front ends and the MCP server call (application.ts).
  const apps = buildApplication({ conn, wal, storage, clock, config, idempotency, templates, jobQueue, jobs, webhooks, audit, publicApiUrl: () => urls.api });
  const routes = apiRoutes({
    conn,
    clock,
    urls,
    checks,
    metrics,
    metricsToken: config.metricsToken,
    billing: config.billing,
    oauthServer: config.oauthServer,
    apps: { ...apps, clients, retention, usage, oauth },
  });

  // Getters: the docs URL is known only once listening, and requests read it then.
  const router = createRouter(routes, {
    get docsUrl() {
      return urls.docs;
    },
    onUnexpectedError: io.logError,
    onWarning: io.logWarning,
  });
  const passwordVerifications = new PasswordVerifications({}, (matched) => metrics.countPasswordVerification(matched));
  const sso = config.sso ? new OidcSignIn(config.sso, { egress: config.egress, now: () => clock.now() }) : null;
  const auth = authApp({
    conn,
    clock,
    passwords: new PasswordAttempts(new SignInThrottle({ firstDelayMs: config.signInDelayMs }), passwordVerifications, clock),
    sso,
    maxApiKeys: config.maxApiKeys,
    onApiKeysChanged: () => authenticator.forgetCachedKeys(),
    audit,
  });
  // The administration console's use cases (also the CLI's: cli/admin/), over this node's view of the service.
  const admin = adminApp({
    conn,
    clock,
    audit,
    publicUrl: () => publicUrl,
    onCredentialsChanged: () => authenticator.forgetCachedKeys(),
    status: {
      modelsDir: config.engineSettings.modelsDir,
      models: config.engineSettings.models,
      dataDir: config.dataDir,
      storageDir: config.storageDir,
      minFreeDisk: config.minFreeDisk,
      ...(runsJobs ? { workers: () => ({ size: config.workers, ...pool.stats() }) } : {}),
    },
  });
  const { app: webApp, signedInUserOf } = createWebApp({
    clock,
    billing: config.billing,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    // Sharing a meeting with colleagues is the web app's alone: the API's and MCP's meetings stay the owner's (SPEC).
    apps: { ...apps, auth, clients, usage, audit: auditing, retention, admin, oauth, sharing: sharingApp({ conn, clock, audit }) },
    sso,
    maxApiKeys: config.maxApiKeys,
    publicApiUrl: () => urls.api,
    publicUrl: () => publicUrl,
    onUnexpectedError: io.logError,
  });
  // On PostgreSQL each API node enforces its share of a key's limit (docs/decisions.md: rate limits
  // across API nodes); on SQLite the one process enforces the whole limit, as before.
  const apiNodes = config.database && servesHttp ? new LiveApiNodes(() => liveNodeCount(conn, ["api", "all"], clock.now())) : undefined;
  await apiNodes?.start();
  // The MCP server (issue 24): the same use cases, for AI assistants, at /mcp.
  const mcp = mcpEndpoint({ apps, publicUrl: () => publicUrl, resources: () => oauthResources(publicUrl), version: SERVICE_VERSION, onUnexpectedError: io.logError });
  const pipeline = createPipeline({
    authenticator,
    limiter: new SlidingWindowLimiter(),
    limits: apiNodes ? splitLimits(config.rateLimits, apiNodes) : config.rateLimits,
    clock,
    get docsUrl() {
      return urls.docs;
    },
    maxHeaderBytes: config.maxHeaderBytes,
    bodyPace: config.bodyPace,
    requestLog,
    observeRequest: (method, route, status, seconds) => metrics.observeRequest(method, route, status, seconds),
    uncountedPaths: new Set(["/healthz", "/readyz", "/metrics", "/assets/app.css"]),
    isWebPath,
    webUserOf: signedInUserOf,
    // Elysia's compiled fetch, not app.handle: that is only an async wrapper around it (1 µs a request).
    route: (request, pathname) => (pathname === MCP_PATH ? mcp.fetch(request) : isWebPath(pathname) ? webApp.fetch(request) : router.fetch(request)),
    onUnexpectedError: io.logError,
    // Built-in TLS: this server is the https origin, so it tells browsers to keep to https (a year).
    ...(config.tls ? { strictTransportSecurity: STRICT_TRANSPORT_SECURITY } : {}),
  });

  const resolveClient = config.trustedProxies ? clientAddressResolver(config.trustedProxies) : null;
  // A worker node never listens: it only runs job steps (and sends webhooks).
  const server = !servesHttp ? undefined : Bun.serve({
    hostname: config.host,
    port: config.port,
    // Uploads stream to disk; the 2 GB limit itself is enforced while reading (413 file_too_large).
    maxRequestBodySize: MAX_REQUEST_BODY_SIZE,
    // Bun's default of 10 s would cut off a slow uplink that pauses mid-upload; 255 s is its maximum.
    idleTimeout: 255,
    // The address is looked up only for requests without a credential (their rate-limit key).
    // Behind trusted proxies (--trusted-proxy) it is the one their header names, resolved at most
    // once a request; without, the peer's address as before, with nothing more on the request path.
    fetch: resolveClient
      ? (request, srv) => {
          let client: string | undefined;
          return pipeline(request, () => (client ??= resolveClient(srv.requestIP(request)?.address ?? "unknown", request.headers)));
        }
      : (request, srv) => pipeline(request, () => srv.requestIP(request)?.address ?? "unknown"),
    // Built-in TLS for sites without a reverse proxy (README: Operations); the files are read once.
    ...(config.tls ? { tls: { cert: readFileSync(config.tls.cert, "utf8"), key: readFileSync(config.tls.key, "utf8") } } : {}),
  });
  const url = server ? `${config.tls ? "https" : "http"}://${displayHost(config.host)}:${server.port}` : "";
  publicUrl ||= url;
  if (runsJobs) {
    // The workers load their models now, while no job waits for them; an API node starts none.
    pool.start();
    await scheduler.start();
  }
  await webhooks.start();
  // Each cut of the retention sweep goes to the audit trail in the transaction that makes it (not
  // through the batched trail): the entry exists if and only if the deletion committed.
  const recordRetentionCut = (tx: TxConn, event: RetentionCutEvent) =>
    appendAuditEntries(tx, [systemEntry(event.userId, event.action, { type: "meeting", id: event.meetingId })], clock.now());
  const sweeps = startRetention(
    {
      uploadsTmpDir: storage.tmpDir,
      clock,
      sweepIdempotencyKeys: () => idempotency.sweep(),
      purgeExpiredRevocations: (now) => purgeExpiredRevocations(conn, now),
      purgeOldDeliveries: (now) => purgeOldDeliveries(conn, now),
      purgeExpiredWebSessions: (now) => purgeExpiredWebSessions(conn, now),
      purgeIdleDrafts: (now) => sweepIdleDrafts({ conn, wal, storage, cancelJobs: (ids) => jobs.cancel(ids) }, config.drafts, now),
      // One node at a time applies the policies (db/sql.ts's exclusively); another skips that round.
      applyRetentionPolicies: async (now) => {
        let cut = { meetings: 0, recordings: 0 };
        await exclusively(conn, "retention-sweep", async () => {
          cut = await sweepRetention({ conn, wal, storage, cancelJobs: (ids) => jobs.cancel(ids), recordCut: recordRetentionCut }, now, io.say);
        });
        return cut;
      },
      purgeAuditTrail: (now) => auditing.purgeExpired(now),
      log: io.say,
    },
    config.sweepIntervalSeconds * 1000,
  );
  if (server) io.say(`Verbatim ${config.role === "api" ? "API node " : ""}listening on ${url}`);
  else io.say(`Verbatim worker node ${node.id} running ${config.workers} worker(s); not listening`);
  const standIns = standInModels(Object.values(config.engineSettings.models));
  if (config.engines === "builtin" && standIns.length) io.say(`warning: ${STAND_IN_WARNING} (${standIns.join(", ")}); install real models (docs/models.md)`);

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: server?.port ?? 0,
    stop() {
      stopping ??= (async () => {
        sweeps.stop();
        apiNodes?.stop();
        await server?.stop();
        await webhooks.stop();
        // Workers are killed; their jobs stay in processing and resume from their step at next
        // start (on PostgreSQL: on another worker node, once their claims run out).
        if (runsJobs) await scheduler.stop();
        await boss?.stop();
        await requestLog?.stop();
        await node.stop();
        // Last, once nothing can record any more: what is queued goes to the database before it closes.
        await audit.stop().catch((error: unknown) => io.logError(error, "audit-trail"));
        wal.stop();
        await conn.close();
        lock.release();
      })();
      return stopping;
    },
  };
}

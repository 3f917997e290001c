// The import rules between the top-level folders of src/ (issue 9; docs/architecture.md says why).
// Every import counts, type-only ones too: a type import still ties a folder to another's shape.
// Test files (*.test.ts) are left out: they are not product code. Files directly in src/ (main.ts,
// service.ts, config.ts) are the composition root, "(root)", and may import anything.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { fileCycles, fileRuleViolations, folderCycles, report, ROOT_FOLDER, ruleViolations, type FileRule, type Rule } from "./architecture/check.ts";
import { importGraph } from "./architecture/imports.ts";

// ---- The policy: adjust here (and in docs/architecture.md, whose folder table it enforces). ------
// Folder names, or files and globs relative to src/ when they have a slash ("worker/protocol.ts").

/** Domain folders: each owns its tables, service and routes. */
const DOMAINS = ["admin", "meetings", "transcripts", "reports", "exports", "templates", "documents", "webhooks", "usage", "auth", "clients", "feedback", "account", "idempotency", "events", "audit", "retention", "vocabulary", "mcp", "oauth", "sharing"];

/**
 * jobs/ knows queues, claims, leases, slots, retries and the worker pool; job kinds plug in from their
 * domains. auth/table.ts only for the jobs table's foreign key to users, auth/actor.ts for who is acting (its use cases).
 */
const JOBS_MAY_IMPORT = ["db", "lib", "errors", "http", "worker/protocol.ts", "worker/command.ts", "auth/table.ts", "auth/pg-table.ts", "auth/actor.ts"];

/** Types shared by the API side and the worker: the only files of domain folders the worker and the engines may import. */
const SHARED_TYPES = ["transcripts/types.ts", "redaction/types.ts"];

/** worker/ runs in its own process: engines and plumbing, nothing of the API side. */
const WORKER_MAY_IMPORT = ["engines", "net", "storage", "lib", "errors", "models", "redaction", ...SHARED_TYPES];

/**
 * The web app reaches every domain through its application module (`app.ts`) alone (issue 21);
 * auth/'s `actor.ts` too: the Actor is what every use case takes.
 */
const WEB_THROUGH_APP = DOMAINS.filter((domain) => domain !== "auth");

const RULES: Rule[] = [
  { description: "jobs/ imports only queue machinery (JOBS_MAY_IMPORT), no domain folder", folder: "jobs", allow: JOBS_MAY_IMPORT },
  { description: "worker/ imports no API-side code (WORKER_MAY_IMPORT)", folder: "worker", allow: WORKER_MAY_IMPORT },
  { description: "db/ imports nothing from http/ or a domain", folder: "db", forbid: ["http", ...DOMAINS] },
  { description: "storage/ imports only lib/, and no domain's table", folder: "storage", allow: ["lib"], forbid: DOMAINS.map((domain) => `${domain}/table.ts`) },
  { description: "engines/ imports only lib/, models/ and the shared types", folder: "engines", allow: ["lib", "models", ...SHARED_TYPES] },
  { description: "http/ imports only auth/, db/, errors/, lib/, net/", folder: "http", allow: ["auth", "db", "errors", "lib", "net"] },
  { description: "net/ imports only lib/", folder: "net", allow: ["lib"] },
  { description: "nodes/ imports only db/ and lib/", folder: "nodes", allow: ["db", "lib"] },
  { description: "lib/ imports nothing else", folder: "lib", allow: [] },
  { description: "redaction/ (a library the worker loads) imports only lib/ and the transcript types", folder: "redaction", allow: ["lib", "transcripts/types.ts"] },
  { description: "errors/ imports only lib/", folder: "errors", allow: ["lib"] },
  { description: "models/ imports only lib/ and its catalogue", folder: "models", allow: ["lib", "../models/catalogue.json"] },
  { description: "product code imports no tool (test/, bench/, scripts/)", folder: "*", forbid: ["../test/**", "../bench/**", "../scripts/**"] },
  { description: "web/ is a front end over the services: only the composition root imports it", folder: "*", except: [ROOT_FOLDER], forbid: ["web"] },
  {
    description: "web/ reaches every domain through its application module (app.ts) only, and auth/ also through actor.ts",
    folder: "web",
    forbid: [`{${WEB_THROUGH_APP.join(",")}}/**/!(app.ts)`, "auth/**/!(app.ts|actor.ts)", "jobs"],
  },
];

/** Store files: the only product code that reads or writes the database (issue 21), with db/ itself. */
const STORE_FILES = ["**/store.ts", "**/*-store.ts", "**/table.ts", "**/pg-table.ts", "db/**"];

/** The database driver and the synchronous connection: what only the stores may import. */
const DATABASE_DRIVER = ["drizzle-orm{,/**}", "bun:sqlite", "db/client.ts"];

const FILE_RULES: FileRule[] = [
  {
    description: "only store files (store.ts, *-store.ts, table.ts, pg-table.ts) and db/ import drizzle-orm, bun:sqlite or db/client.ts",
    files: ["**"],
    except: STORE_FILES,
    forbid: DATABASE_DRIVER,
  },
  {
    description: "API routes (routes.ts), the web app (web/) and the MCP server (mcp/) import application modules, never a store or a table",
    files: ["**/routes.{ts,tsx}", "web/**", "mcp/**"],
    forbid: ["**/*store.ts", "**/table.ts"],
    // The browser's own IndexedDB store of recorded parts, inside the recorder island.
    allow: ["web/islands/**"],
  },
];

/** Package imports as edges (`to` the package's name), for the file rules on the database driver. */
const packageEdges = (packages: { from: string; specifier: string; line: number }[]) =>
  packages.map((p) => ({ from: p.from, to: p.specifier, specifier: p.specifier, line: p.line, typeOnly: false }));

/** Left out of the cycle check: the composition root imports every folder by design. */
const CYCLE_EXEMPT = [ROOT_FOLDER];

/** Folders whose files must not import each other round a loop either (type-only imports count). */
const NO_FILE_CYCLES = ["engines", "worker", "models"];
// --------------------------------------------------------------------------------------------------

const graph = importGraph(join(import.meta.dir, "..", "src"));

test("the import graph is read: every relative import of src/ resolves to a file", () => {
  expect(graph.files.length).toBeGreaterThan(100);
  expect(graph.edges.length).toBeGreaterThan(300);
  expect(graph.unresolved.map((edge) => `${edge.from}:${edge.line} ${edge.specifier}`)).toEqual([]);
});

test("src/ follows the import rules and has no import cycle between folders", () => {
  const violations = [...ruleViolations(graph.edges, RULES), ...fileRuleViolations([...graph.edges, ...packageEdges(graph.packages)], FILE_RULES)];
  const problems = report(violations, folderCycles(graph.edges, CYCLE_EXEMPT));
  if (problems) console.error(`\nForbidden imports (policy at the top of test/architecture.test.ts):\n${problems}\n`);
  expect(problems).toBe("");
});

test("each rule fires on a made-up import that breaks it, and lets the allowed ones through", () => {
  const edge = (from: string, to: string, typeOnly = false) => ({ from, to, specifier: `(made up) ${to}`, line: 1, typeOnly });
  const broken = [
    edge("jobs/scheduler.ts", "meetings/table.ts", true),
    edge("jobs/scheduler.ts", "events/emit.ts"),
    edge("jobs/worker-pool.ts", "worker/steps.ts"),
    edge("worker/steps.ts", "db/client.ts", true),
    edge("worker/steps.ts", "jobs/kind.ts"),
    edge("worker/steps.ts", "http/route.ts"),
    edge("worker/steps.ts", "transcripts/store.ts"),
    edge("worker/steps.ts", "config.ts"),
    edge("db/client.ts", "http/pagination.ts"),
    edge("db/client.ts", "meetings/table.ts"),
    edge("storage/paths.ts", "meetings/table.ts"),
    edge("storage/paths.ts", "net/egress.ts"),
    edge("engines/load.ts", "db/client.ts"),
    edge("engines/load.ts", "transcripts/store.ts"),
    edge("http/route.ts", "meetings/table.ts"),
    edge("net/egress.ts", "storage/paths.ts"),
    edge("nodes/store.ts", "jobs/store.ts"),
    edge("lib/ids.ts", "errors/api-error.ts"),
    edge("errors/api-error.ts", "http/route.ts"),
    edge("redaction/redact.ts", "meetings/app.ts"),
    edge("redaction/detect.ts", "engines/llm/index.ts"),
    edge("models/catalogue.ts", "engines/types.ts"),
    edge("meetings/create.ts", "../test/support/engines.ts"),
    edge("engines/wav.ts", "../bench/quality/metrics.ts"),
    edge("meetings/routes.ts", "web/routes.tsx"),
    edge("web/meeting/downloads.ts", "documents/store.ts"),
    edge("web/pages/meeting.tsx", "transcripts/types.ts", true),
    edge("web/meeting/forms.tsx", "meetings/delete.ts"),
    edge("web/pages/meetings.tsx", "meetings/render.ts", true),
    edge("web/webhook-routes.tsx", "webhooks/endpoints.ts"),
    edge("web/i18n.ts", "auth/users.ts", true),
    edge("web/usage-routes.tsx", "usage/render.ts"),
    edge("web/pages/clients.tsx", "clients/service.ts", true),
    edge("web/kit.ts", "jobs/slots.ts", true),
  ];
  const fine = [
    edge("web/kit.ts", "auth/actor.ts"),
    edge("web/kit.ts", "auth/app.ts", true),
    edge("web/usage-routes.tsx", "usage/app.ts"),
    edge("jobs/scheduler.ts", "db/client.ts"),
    edge("jobs/scheduler.ts", "worker/protocol.ts", true),
    edge("jobs/scheduler.ts", "jobs/kind.ts"),
    edge("worker/steps.ts", "transcripts/types.ts", true),
    edge("worker/steps.ts", "engines/ffmpeg.ts"),
    edge("worker/steps.ts", "storage/paths.ts"),
    edge("db/client.ts", "lib/time.ts"),
    edge("storage/paths.ts", "lib/ids.ts"),
    edge("engines/whisper/index.ts", "transcripts/types.ts", true),
    edge("engines/load.ts", "models/catalogue.ts"),
    edge("http/pipeline.ts", "auth/authenticate.ts"),
    edge("errors/api-error.ts", "lib/ids.ts"),
    edge("redaction/redact.ts", "transcripts/types.ts", true),
    edge("worker/steps.ts", "redaction/redact.ts"),
    edge("engines/types.ts", "redaction/types.ts", true),
    edge("models/catalogue.ts", "../models/catalogue.json"),
    edge("jobs/table.ts", "auth/table.ts"),
    edge("meetings/processing.ts", "jobs/queue-store.ts"),
    edge("db/migrations.generated.ts", "../migrations/0000_init.sql"),
    edge("service.ts", "meetings/routes.ts"),
    edge("service.ts", "web/routes.tsx"),
    edge("web/meeting-routes.tsx", "meetings/app.ts"),
    edge("web/webhook-routes.tsx", "webhooks/app.ts"),
    edge("web/meeting/downloads.ts", "documents/app.ts"),
  ];
  const caught = ruleViolations([...broken, ...fine], RULES);
  const named = (e: { from: string; to: string }) => `${e.from} → ${e.to}`;
  expect([...new Set(caught.map((v) => named(v.edge)))].sort()).toEqual(broken.map(named).sort());
  // Every rule of the policy caught something: none is dead.
  expect(new Set(caught.map((v) => v.rule))).toEqual(new Set(RULES));

  // The file rules: the database driver, and routes and pages over application modules.
  const brokenFiles = [
    edge("usage/admission.ts", "drizzle-orm"),
    edge("auth/users.ts", "drizzle-orm/sqlite-core", true),
    edge("webhooks/delivery-thread.ts", "bun:sqlite"),
    edge("documents/request.ts", "db/client.ts", true),
    edge("service.ts", "db/client.ts"),
    edge("web/kit.ts", "db/client.ts", true),
    edge("meetings/app.ts", "drizzle-orm"),
    edge("usage/routes.ts", "usage/store.ts"),
    edge("meetings/routes.ts", "meetings/list-store.ts"),
    edge("documents/routes.ts", "documents/table.ts", true),
    edge("web/routes.tsx", "auth/user-store.ts"),
    edge("web/pages/usage.tsx", "usage/webapp-quota-store.ts", true),
    edge("web/meeting/page.tsx", "meetings/table.ts", true),
    edge("meetings/search-index.ts", "drizzle-orm"),
    edge("web/draft-routes.tsx", "usage/admission-store.ts"),
  ];
  const fineFiles = [
    edge("usage/store.ts", "drizzle-orm"),
    edge("auth/user-store.ts", "db/client.ts", true),
    edge("jobs/table.ts", "drizzle-orm/sqlite-core"),
    edge("db/conn.ts", "bun:sqlite", true),
    edge("db/migrate.ts", "bun:sqlite", true),
    edge("meetings/search-index-store.ts", "drizzle-orm"),
    edge("service.ts", "db/conn.ts"),
    edge("service.ts", "auth/user-store.ts"),
    edge("usage/app.ts", "usage/store.ts"),
    edge("usage/routes.ts", "usage/app.ts", true),
    edge("web/routes.tsx", "auth/app.ts"),
    edge("web/pages/usage.tsx", "usage/app.ts", true),
    edge("web/islands/recorder.ts", "web/islands/part-store.ts"),
    edge("web/draft-routes.tsx", "meetings/app.ts"),
  ];
  const caughtFiles = fileRuleViolations([...brokenFiles, ...fineFiles], FILE_RULES);
  expect(caughtFiles.map((v) => named(v.edge)).sort()).toEqual(brokenFiles.map(named).sort());
  expect(new Set(caughtFiles.map((v) => v.rule))).toEqual(new Set(FILE_RULES));

  const cycle = [edge("meetings/create.ts", "jobs/queue-store.ts"), edge("jobs/scheduler.ts", "events/emit.ts"), edge("events/emit.ts", "meetings/table.ts")];
  expect(folderCycles(cycle, CYCLE_EXEMPT).map((c) => c.folders)).toEqual([["events", "jobs", "meetings"]]);
  // The composition root imports everything, and cli/ imports config.ts: not a cycle.
  expect(folderCycles([edge("main.ts", "cli/serve.ts"), edge("cli/serve.ts", "config.ts")], CYCLE_EXEMPT)).toEqual([]);
});

test("no import cycle between the files inside engines/, worker/ and models/ (NO_FILE_CYCLES)", () => {
  const problems = report([], [], NO_FILE_CYCLES.flatMap((folder) => fileCycles(graph.edges, folder)));
  if (problems) console.error(`\nImport cycles between files (policy at the top of test/architecture.test.ts):\n${problems}\n`);
  expect(problems).toBe("");
  // The check finds a loop made of a type-only import, like the one vad.ts and vad-onnx.ts once made.
  const edge = (from: string, to: string, typeOnly = false) => ({ from, to, specifier: to, line: 1, typeOnly });
  const loop = [edge("engines/whisper/vad.ts", "engines/whisper/vad-onnx.ts"), edge("engines/whisper/vad-onnx.ts", "engines/whisper/vad.ts", true), edge("worker/a.ts", "engines/whisper/vad.ts")];
  expect(fileCycles(loop, "engines").map((cycle) => cycle.path)).toEqual([["engines/whisper/vad-onnx.ts", "engines/whisper/vad.ts", "engines/whisper/vad-onnx.ts"]]);
  expect(fileCycles(loop, "worker")).toEqual([]);
});

/**
 * The stores run on SQLite and on PostgreSQL (issue 22): every query is awaited through the query
 * builder. `.all()`, `.get()` and `.run()` (bun:sqlite's synchronous terminals) and `q.all(sql…)`
 * style raw calls exist on SQLite only; raw SQL goes through db/sql.ts (rows, row, exec).
 */
const SYNC_QUERY = [/\)\s*\.(all|get|run)\(\)/, /\b(q|db|tx)\.(all|get|run)\s*[<(]/];

test("store files query the database the way both dialects allow (awaited builders, raw SQL through db/sql.ts)", async () => {
  const { Glob } = await import("bun");
  const src = join(import.meta.dir, "..", "src");
  const offenders: string[] = [];
  let scanned = 0;
  for await (const file of new Glob("**/{store,*-store}.ts").scan(src)) {
    scanned += 1;
    const lines = (await Bun.file(join(src, file)).text()).split("\n");
    lines.forEach((line, i) => {
      if (SYNC_QUERY.some((pattern) => pattern.test(line))) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(scanned).toBeGreaterThan(30);
  expect(offenders).toEqual([]);
  // The patterns catch what they are for.
  expect(SYNC_QUERY.some((p) => p.test("q.select().from(jobs).where(eq(jobs.id, id)).get()"))).toBe(true);
  expect(SYNC_QUERY.some((p) => p.test("q.all<{ n: number }>(sql`SELECT 1`)"))).toBe(true);
  expect(SYNC_QUERY.some((p) => p.test("const row = await q.select().from(jobs).limit(1);"))).toBe(false);
});

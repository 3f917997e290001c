import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, createUserWithKey, ROOT, runCli, startServer, type TestServer } from "../helpers/server.ts";
import { LOOPBACK_CA_FILE, startReceiver } from "../support/webhook-receiver.ts";
import { APP_SCRIPT } from "../../src/web/routes.tsx";

// The same entry point compiled into one executable, as shipped: migrations and every
// subcommand must work from it with no source tree beside it.
const outDir = mkdtempSync(join(tmpdir(), "verbatim-bin-"));
const binary = join(outDir, "verbatim");
let server: TestServer;

beforeAll(async () => {
  // The build script's own flags (package.json), with the output moved to the temp dir.
  const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
  const args = script.split(/\s+/).slice(1).map((arg) => (arg === "dist/verbatim" ? binary : arg));
  const build = Bun.spawnSync([BUN, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`bun build --compile failed: ${build.stderr}`);
  // No node_modules beside this copy: the native engines are found through VERBATIM_NATIVE_MODULES.
  server = await startServer({
    command: [binary],
    args: ["--rate-limits", "pro=100000,anonymous=100000", "--models-dir", join(ROOT, "models"), "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE],
    env: { VERBATIM_NATIVE_MODULES: ROOT },
  });
});

afterAll(async () => {
  await server?.stop();
  rmSync(outDir, { recursive: true, force: true });
});

test("the compiled executable prints the same help as the source", async () => {
  const fromBinary = await runCli(["serve", "--help"], [binary]);
  const fromSource = await runCli(["serve", "--help"]);
  expect(fromBinary.code).toBe(0);
  expect(fromBinary.stdout).toBe(fromSource.stdout);
});

test("the compiled executable migrates, bootstraps and serves the API", async () => {
  const me = await server.api("/api/v1/me", { key: server.adminKey });
  expect(me.status).toBe(200);
  const ready = (await (await server.api("/readyz", { key: server.adminKey })).json()) as any;
  expect(ready.checks.migrations).toMatchObject({ ready: true, detail: "applied" });
});

test("admin commands of the compiled executable work on the running server's data dir", async () => {
  const user = await server.admin("user", "create", "--email", "bin@example.com", "--json");
  expect(user.code).toBe(0);
  const key = await server.admin("key", "create", "--email", "bin@example.com", "--name", "k", "--scopes", "all", "--json");
  expect(key.code).toBe(0);
  const response = await server.api("/api/v1/me", { key: JSON.parse(key.stdout).key });
  expect(((await response.json()) as any).user.email).toBe("bin@example.com");
});

test("the compiled executable serves the web app with its script and stylesheet built in (no source tree beside it)", async () => {
  const login = await server.api("/login");
  expect(login.status).toBe(200);
  expect(await login.text()).toContain('<script type="module" src="/assets/app.js"></script>');
  const script = await server.api("/assets/app.js");
  expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  // The same bundle the source makes: built at compile time by the macro, embedded in the executable.
  expect(await script.text()).toBe(APP_SCRIPT);
  expect(APP_SCRIPT).toContain("querySelectorAll");
  expect((await server.api("/assets/app.css")).status).toBe(200);
});

test("the compiled executable answers oversized headers with its own problem+json 431", async () => {
  const response = await server.api("/api/v1/me", { headers: { "X-Big": "x".repeat(20_000) } });
  expect(response.status).toBe(431);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
});

test("the compiled executable runs the real engines (whisper.cpp, sherpa-onnx, llama.cpp) from node_modules outside it", async () => {
  const key = await createUserWithKey(server, "engines@example.com");
  const form = new FormData();
  form.append("file", Bun.file(join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav")), "meeting-fr-2spk.wav");
  const created = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  expect(created.status).toBe(202);
  const meeting = (await created.json()) as any;
  let job: any;
  for (let i = 0; i < 1200; i++) {
    job = await (await server.api(`/api/v1/jobs/${meeting.job.id}`, { key })).json();
    if (["completed", "failed", "canceled"].includes(job.status)) break;
    await Bun.sleep(100);
  }
  expect(job).toMatchObject({ status: "completed", error: null });
  const transcript = (await (await server.api(`/api/v1/meetings/${meeting.id}/transcript`, { key })).json()) as any;
  expect(transcript.model).toBe("ggml-tiny-random");
  expect(transcript.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
  const summary = await server.api(`/api/v1/meetings/${meeting.id}/summary`, { key });
  expect(summary.status).toBe(200);

  // A document written by the LLM, then rendered with the fonts embedded in the executable.
  const requested = await server.api(`/api/v1/meetings/${meeting.id}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } });
  expect(requested.status).toBe(202);
  const documentJob = (await requested.json()) as any;
  for (let i = 0; i < 1200; i++) {
    job = await (await server.api(`/api/v1/jobs/${documentJob.id}`, { key })).json();
    if (["completed", "failed", "canceled"].includes(job.status)) break;
    await Bun.sleep(100);
  }
  expect(job).toMatchObject({ status: "completed", error: null });
  const pdf = await server.api(`/api/v1/documents/${job.document_id}?format=pdf`, { key });
  expect(pdf.status).toBe(200);
  const path = join(outDir, "document.pdf");
  await Bun.write(path, await pdf.arrayBuffer());
  expect(Bun.spawnSync(["pdftotext", path, "-"]).stdout.toString()).toContain("Minutes");
}, 180_000);

test("the compiled executable sends webhooks from its delivery thread", async () => {
  const receiver = startReceiver();
  try {
    const key = await createUserWithKey(server, "hooks-bin@example.com");
    const created = await server.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: receiver.url, events: ["*"] } });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as any;
    expect((await server.api(`/api/v1/webhook_endpoints/${endpoint.id}/test`, { method: "POST", key })).status).toBe(202);
    const [ping] = await receiver.waitFor(1);
    expect(ping!.headers.get("verbatim-event-type")).toBe("ping");
  } finally {
    receiver.stop();
  }
});

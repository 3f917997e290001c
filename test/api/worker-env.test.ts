// Workers and ffmpeg get a scrubbed environment (issue 20, item 9): a server started with secrets in
// its environment (the SSO client secret, the SMTP URL with its password, the metrics token, and an
// unrelated cloud secret the operator's unit file happens to set) processes a real recording; an
// engine module that reports the worker's process.env and an ffmpeg wrapper that dumps its own show
// that none of them reaches either. The environment is an allowlist, not the service's minus a list.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runCli, SHARED_FIXTURES, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);

const SECRETS = {
  VERBATIM_SSO_ISSUER: "https://sso.firm.example",
  VERBATIM_SSO_CLIENT_ID: "verbatim",
  VERBATIM_SSO_CLIENT_SECRET: "sso-client-secret-6f1c",
  VERBATIM_SMTP_URL: "smtps://mailer:smtp-password-93ab@smtp.firm.example:465",
  VERBATIM_METRICS_TOKEN: "metrics-token-5d2e",
  AWS_SECRET_ACCESS_KEY: "aws-secret-0c7d",
};
const SECRET_VALUES = ["sso-client-secret-6f1c", "smtp-password-93ab", "metrics-token-5d2e", "aws-secret-0c7d"];

const scratch = mkdtempSync(join(tmpdir(), "verbatim-worker-env-"));
const dumps = join(scratch, "dumps");
let server: TestServer;

beforeAll(async () => {
  rmSync(dumps, { recursive: true, force: true });
  Bun.spawnSync(["mkdir", "-p", dumps]);
  // The engine doubles, reporting the worker's environment when the worker loads them.
  const engines = join(scratch, "env-reporting-engines.ts");
  writeFileSync(
    engines,
    [
      `import { writeFileSync } from "node:fs";`,
      `import { createEngines as doubles } from ${JSON.stringify(join(ROOT, "test/doubles/engines.ts"))};`,
      `export function createEngines() {`,
      `  writeFileSync(${JSON.stringify(join(dumps, "worker.json"))}, JSON.stringify(process.env));`,
      `  return doubles();`,
      `}`,
    ].join("\n"),
  );
  // ffmpeg, dumping its environment before it runs.
  const ffmpeg = join(scratch, "ffmpeg");
  writeFileSync(ffmpeg, `#!/bin/sh\nenv > "${dumps}/ffmpeg-$$.env"\nexec ${JSON.stringify(Bun.which("ffmpeg"))} "$@"\n`);
  chmodSync(ffmpeg, 0o755);
  server = await startServer({
    args: ["--engines", engines, "--ffmpeg", ffmpeg, "--rate-limits", "pro=100000", "--worker-env", "OPERATOR_TUNING"],
    env: { ...SECRETS, OPERATOR_TUNING: "on", TEST_ENGINE_BEHAVIOR: "" },
  });
});
afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the environment of workers and ffmpeg", () => {
  test("a processed recording: the worker and every ffmpeg run see no secret of the service, only the allowlist", async () => {
    const form = new FormData();
    form.append("file", Bun.file(join(SHARED_FIXTURES, "meeting-fr-2spk.wav")), "m.wav");
    const created = await server.api("/api/v1/meetings", { method: "POST", key: server.adminKey, body: form });
    expect(created.status).toBe(202);
    const { job } = (await created.json()) as { job: { id: string } };
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = ((await (await server.api(`/api/v1/jobs/${job.id}`, { key: server.adminKey })).json()) as { status: string }).status;
      if (status === "completed") break;
      if (status === "failed" || Date.now() > deadline) throw new Error(`job ${status}`);
      await Bun.sleep(100);
    }

    const worker = JSON.parse(readFileSync(join(dumps, "worker.json"), "utf8")) as Record<string, string>;
    const ffmpegRuns = readdirSync(dumps).filter((name) => name.startsWith("ffmpeg-"));
    expect(ffmpegRuns.length).toBeGreaterThanOrEqual(2); // the probe and the decode, at least
    const ffmpegEnvs = ffmpegRuns.map((name) => readFileSync(join(dumps, name), "utf8"));
    for (const text of [JSON.stringify(worker), ...ffmpegEnvs]) {
      for (const secret of SECRET_VALUES) expect(text).not.toContain(secret);
      for (const name of Object.keys(SECRETS)) expect(text).not.toContain(name);
    }
    // What the worker needs is there: PATH, its configuration, what the operator passed by name.
    expect(worker.PATH).toBe(process.env.PATH!);
    expect(worker.VERBATIM_INTERNAL_WORKER_CONFIG).toBeDefined();
    expect(worker.OPERATOR_TUNING).toBe("on");
    // Nothing the allowlist does not name (Bun's own IPC channel aside).
    const unexpected = Object.keys(worker).filter(
      (name) => !/^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|TZ|TMPDIR|TMP|TEMP|XDG_CACHE_HOME|LD_LIBRARY_PATH|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|VERBATIM_NATIVE_MODULES|VERBATIM_INTERNAL_WORKER_CONFIG|OPERATOR_TUNING|TEST_ENGINE_BEHAVIOR|VERBATIM_TEST_MARK|BUN_BE_BUN|NODE_CHANNEL_\w+|(LC|CUDA|NVIDIA|GGML|HIP|ROCR|HSA|VK|OMP|NODE_LLAMA_CPP)_\w*)$/.test(name),
    );
    expect(unexpected).toEqual([]);
    // ffmpeg gets less still: not the worker's configuration, nor what --worker-env passed.
    for (const text of ffmpegEnvs) {
      expect(text).toContain(`PATH=${process.env.PATH}`);
      expect(text).not.toContain("VERBATIM_INTERNAL_WORKER_CONFIG");
      expect(text).not.toContain("OPERATOR_TUNING");
    }
  });

  test("--worker-env refuses the service's own settings", async () => {
    for (const name of ["VERBATIM_SMTP_URL", "VERBATIM_SSO_CLIENT_SECRET", "VERBATIM_METRICS_TOKEN", "VERBATIM_INTERNAL_WORKER_CONFIG"]) {
      const refused = await runCli(["config", "print", "--worker-env", `OPERATOR_TUNING,${name}`]);
      expect({ name, code: refused.code }).toEqual({ name, code: 2 });
      expect(refused.stderr).toContain(`--worker-env: ${name} is a setting of the service itself`);
    }
    expect((await runCli(["config", "print", "--worker-env", "not a name"])).code).toBe(2);
  });
});

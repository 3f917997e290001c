// A failed job tells the client what went wrong in the client's terms: never a server path (the
// data dir, a meeting folder, the models dir, an engine module's path) nor raw tool output. The
// raw text stays in the server log (issue 8, item 2). Real ffmpeg and a real server, over HTTP.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { undecodableRecording } from "../helpers/recordings.ts";
import { createUserWithKey, ROOT, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const BASE_ARGS = ["--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=50"];
const DOUBLES = ["--engines", "test/doubles/engines.ts"];
const scratch = mkdtempSync(join(tmpdir(), "verbatim-job-errors-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Starts a server, sends one recording, follows its job to its end, stops the server; answers the job and the server's log. */
async function failedJob(args: string[], recording: Blob, fileName: string) {
  const server = await startServer({ args: [...BASE_ARGS, ...args], env: { TEST_ENGINE_BEHAVIOR: "" } });
  try {
    const key = await createUserWithKey(server, "owner@example.com");
    const form = new FormData();
    form.append("file", recording, fileName);
    const created = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
    expect(created.status).toBe(202);
    const { id, job: queued } = (await created.json()) as { id: string; job: { id: string } };
    const deadline = Date.now() + 30_000;
    let job: any;
    for (;;) {
      job = await (await server.api(`/api/v1/jobs/${queued.id}`, { key })).json();
      if (["completed", "failed", "canceled"].includes(job.status)) break;
      if (Date.now() > deadline) throw new Error(`job still ${job.status}`);
      await Bun.sleep(100);
    }
    const meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as any;
    return { job, meeting, server, log: server.lines.join("\n") };
  } finally {
    await server.stop();
  }
}

/** The client's view of the failure names nothing of the server. */
function expectNoServerDetails(job: any, server: TestServer, extra: string[] = []) {
  expect(job.status).toBe("failed");
  const message: string = job.error.message;
  expect(message.length).toBeGreaterThan(10);
  for (const secret of [server.dataDir, tmpdir(), ROOT, scratch, ...extra]) expect(message).not.toContain(secret);
  // No absolute path of any kind, and none of ffmpeg's or Bun's own wording.
  expect(message).not.toMatch(/(^|[\s'"(=:])\/\w/);
  for (const raw of ["Invalid data", "ffmpeg exited", "Input #0", "@ 0x", "ENOENT", "Cannot find module", "error:"]) {
    expect(message).not.toContain(raw);
  }
}

describe("job errors name no server path", () => {
  test("a file that starts like a WAV but is none fails with unsupported_media in plain words", async () => {
    const { job, server, log } = await failedJob(DOUBLES, new Blob([undecodableRecording()]), "notes.wav");
    expect(job.error).toEqual({ code: "unsupported_media", message: "The file is not a recording ffmpeg can decode." });
    expectNoServerDetails(job, server);
    expect(log).toContain(`job ${job.id} failed: unsupported_media`);
  });

  test("a missing engine module fails with engine_load_failed; its path is in the server log only", async () => {
    const missing = join(scratch, "nowhere", "engines.ts");
    const { job, server, log } = await failedJob(["--engines", missing], Bun.file(FIXTURE), "meeting.wav");
    expect(job.error.code).toBe("engine_load_failed");
    expect(job.error.message).toBe("The processing engines could not be loaded.");
    expectNoServerDetails(job, server, [missing, "nowhere"]);
    // The operator still learns why, from the log line of the failure.
    expect(log).toMatch(new RegExp(`job ${job.id} failed: engine_load_failed: .*\\[detail: .*nowhere/engines\\.ts`));
  });

  test("an engine module that throws while loading: its words go to the log, not to the client", async () => {
    const module = join(scratch, "throwing-engines.ts");
    writeFileSync(module, `throw new Error("cannot open /srv/verbatim/secret/config.toml: permission denied");\n`);
    const { job, server, log } = await failedJob(["--engines", module], Bun.file(FIXTURE), "meeting.wav");
    expect(job.error.code).toBe("engine_load_failed");
    expectNoServerDetails(job, server, ["/srv/verbatim", "permission denied"]);
    expect(log).toContain("cannot open /srv/verbatim/secret/config.toml: permission denied");
  });

  test("a model missing from the models directory: model_missing names the model, not the directory", async () => {
    const models = join(scratch, "empty-models");
    mkdirSync(models, { recursive: true });
    const { job, server, log } = await failedJob(["--models-dir", models], Bun.file(FIXTURE), "meeting.wav");
    expect(job.error.code).toBe("model_missing");
    expect(job.error.message).toContain("whisper/ggml-tiny-random.bin"); // relative to the models dir: the operator's name for it
    expectNoServerDetails(job, server, [models]);
    expect(log).toContain(`is not in ${models}`);
  });

  test("an engine whose error message names the decoded audio's path: the catalogue's sentence replaces it", async () => {
    // Libraries do this (whisper.cpp: "failed to open '/data/meetings/.../audio.wav'"); the worker must not pass it on.
    const module = join(scratch, "leaky-engines.ts");
    writeFileSync(
      module,
      `import { EngineError } from ${JSON.stringify(join(ROOT, "src/engines/types.ts"))};
import { createEngines as doubles } from ${JSON.stringify(join(ROOT, "test/doubles/engines.ts"))};
export function createEngines() {
  return { ...doubles(), transcriber: { async transcribe({ wavPath }) { throw new EngineError("transcription_failed", "whisper.cpp failed to open '" + wavPath + "'", false); } } };
}
`,
    );
    const { job, meeting, server, log } = await failedJob(["--engines", module], Bun.file(FIXTURE), "meeting.wav");
    expect(job.error).toEqual({ code: "transcription_failed", message: "The speech recognition engine failed on this recording." });
    expectNoServerDetails(job, server, [meeting.id, "audio.wav"]);
    expect(log).toContain(`whisper.cpp failed to open '${join(server.dataDir, "meetings", meeting.id, "audio.wav")}'`);
  });
});

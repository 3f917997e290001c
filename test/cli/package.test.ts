// The release archive (issue 13): scripts/package.sh builds it; unpacked into a temp folder and
// run from another directory, with nothing from this checkout on its search paths (no
// node_modules, no VERBATIM_NATIVE_MODULES), it serves the API and processes a fixture end to end
// with the real engines it carries in lib/, and renders a document with its embedded fonts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const scratch = mkdtempSync(join(tmpdir(), "verbatim-archive-"));
let archive: string;
let executable: string;
let server: TestServer;

beforeAll(async () => {
  const build = Bun.spawn(["bash", join(ROOT, "scripts/package.sh"), "cpu"], { cwd: ROOT, env: { ...process.env, OUT_DIR: join(scratch, "out") }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([build.exited, new Response(build.stdout).text(), new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`package.sh failed: ${stderr}`);
  archive = stdout.trim().split("\n").at(-1)!.split(" ")[0]!;
  const unpacked = join(scratch, "opt");
  Bun.spawnSync(["mkdir", "-p", unpacked]);
  const untar = Bun.spawnSync(["tar", "-xzf", archive, "-C", unpacked]);
  if (untar.exitCode !== 0) throw new Error("could not unpack the archive");
  const [folder] = readdirSync(unpacked);
  executable = join(unpacked, folder!, "verbatim");
  // Only ffmpeg (and the basic tools) on PATH; HOME elsewhere; run from the filesystem root.
  server = await startServer({
    command: [executable],
    cwd: "/",
    args: ["--models-dir", join(ROOT, "models"), "--rate-limits", "pro=100000"],
    env: { PATH: "/usr/bin:/bin", HOME: scratch, VERBATIM_NATIVE_MODULES: "" },
  });
}, 300_000);
afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test("the archive holds the executable and lib/node_modules with the native engines, no CUDA build in the CPU variant", () => {
  expect(archive).toMatch(/verbatim-\d+\.\d+\.\d+-linux-x64\.tar\.gz$/);
  const lib = join(executable, "..", "lib", "node_modules");
  for (const engine of ["node-llama-cpp", "@node-llama-cpp/linux-x64", "smart-whisper", "@fugood/whisper.node", "sherpa-onnx-node", "sherpa-onnx-linux-x64"]) {
    expect({ engine, present: existsSync(join(lib, engine)) }).toEqual({ engine, present: true });
  }
  expect(existsSync(join(lib, "@node-llama-cpp/linux-x64-cuda"))).toBe(false);
  expect(existsSync(join(lib, "elysia"))).toBe(false); // bundled into the executable
});

test("run from another directory, it processes a fixture end to end and renders a document", async () => {
  const key = await createUserWithKey(server, "archive@firm.example");
  const form = new FormData();
  form.append("file", Bun.file(join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav")), "meeting.wav");
  form.append("document_templates", "tpl_minutes");
  const created = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
  expect(created.status).toBe(202);
  const meeting = (await created.json()) as any;
  const finished = async (jobId: string) => {
    for (let i = 0; i < 1200; i++) {
      const job = (await (await server.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
      if (["completed", "failed", "canceled"].includes(job.status)) return job;
      await Bun.sleep(100);
    }
    throw new Error("job did not end");
  };
  const job = await finished(meeting.job.id);
  expect(job).toMatchObject({ status: "completed", error: null });
  const transcript = (await (await server.api(`/api/v1/meetings/${meeting.id}/transcript`, { key })).json()) as any;
  expect(transcript.model).toBe("ggml-tiny-random");
  expect(transcript.speakers.length).toBeGreaterThanOrEqual(1);
  const documentJob = await finished(job.document_job_ids[0]);
  expect(documentJob.status).toBe("completed");
  const pdf = await server.api(`/api/v1/documents/${documentJob.document_id}?format=pdf`, { key });
  expect(pdf.status).toBe(200);
  const path = join(scratch, "minutes.pdf");
  writeFileSync(path, new Uint8Array(await pdf.arrayBuffer()));
  expect(Bun.spawnSync(["pdffonts", path]).stdout.toString()).toContain("DejaVuSans");
}, 240_000);

/**
 * A 2 GB upload through the real service: POST /api/v1/meetings with a multipart body generated
 * on the fly and streamed over loopback. Reports throughput and the server's peak RSS.
 *
 *   bun bench/upload.ts [--mib 1900] [--content-length] [--binary dist/verbatim]
 *
 * Targets (issue 3): at least 300 MB/s, server under 300 MB RSS. Figures are reported, not asserted;
 * the exit code is non-zero only if the upload was not accepted or the stored file differs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { recordingPath } from "../src/storage/paths.ts";
import { spawnServer } from "../test/helpers/spawn-server.ts";
import { generatedUpload, MiB, procStatusBytes } from "./lib/generated-upload.ts";

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const fileMiB = Number(option("--mib") ?? 1900); // 1900 MiB = 1.99 GB, just under the 2 GB (2,000,000,000 bytes) limit
const withLength = args.includes("--content-length");
const binary = option("--binary");
const root = join(import.meta.dir, "..");

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-upload-bench-"));
const command = binary
  ? [resolve(binary)]
  : [process.execPath, "--max-http-header-size=65536", join(root, "src/main.ts")];
const service = await spawnServer({
  command: [...command, "serve", "--port", "0", "--data-dir", dataDir, "--log-requests=false"],
  stderr: "inherit",
}).catch((error: Error) => {
  rmSync(dataDir, { recursive: true, force: true });
  throw error;
});
const { url, proc: server } = service;

try {
  const key = service.stdout.map((line) => /^\s+(vb_live_\w+)$/.exec(line)?.[1]).find(Boolean);
  if (!key) throw new Error(`server printed no bootstrap API key:\n${service.stdout.join("\n")}`);

  const upload = generatedUpload(fileMiB, { title: "Upload benchmark", tags: "bench" });
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, "Content-Type": upload.contentType };
  if (withLength) headers["Content-Length"] = String(upload.contentLength);

  const baseline = procStatusBytes(server.pid, "VmRSS");
  let sampled = 0;
  const sampler = setInterval(() => (sampled = Math.max(sampled, procStatusBytes(server.pid, "VmRSS"))), 100);
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/meetings`, { method: "POST", headers, body: upload.body });
  const meeting = (await response.json()) as { id?: string; detail?: string };
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const peak = procStatusBytes(server.pid, "VmHWM");
  if (response.status !== 202 || !meeting.id) throw new Error(`upload refused: ${response.status} ${JSON.stringify(meeting)}`);

  // After the clock: the stored recording is byte for byte what was sent.
  const hash = new Bun.CryptoHasher("sha256");
  for await (const piece of Bun.file(recordingPath(dataDir, meeting.id)).stream()) hash.update(piece);
  const intact = hash.digest("hex") === upload.sha256();

  const report = {
    date: new Date().toISOString(),
    machine: `${cpus().length} cores, ${cpus()[0]?.model}`,
    runtime: binary ? `compiled ${binary}` : `bun ${Bun.version} from source`,
    file_bytes: upload.fileBytes,
    transfer: withLength ? "content-length" : "chunked",
    seconds: Number(seconds.toFixed(2)),
    mb_per_s: Math.round(upload.fileBytes / seconds / 1e6),
    server_rss_before_mib: Math.round(baseline / MiB),
    server_rss_peak_sampled_mib: Math.round(sampled / MiB),
    server_vmhwm_mib: Math.round(peak / MiB),
    stored_file_intact: intact,
  };
  console.log(JSON.stringify(report, null, 2));
  console.log(
    `\n| ${report.transfer} | ${(upload.fileBytes / 1e9).toFixed(2)} GB | ${report.seconds} s | ${report.mb_per_s} MB/s | ${report.server_vmhwm_mib} MiB |`,
  );
  if (!intact) process.exitCode = 1;
} finally {
  server.kill("SIGTERM");
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}

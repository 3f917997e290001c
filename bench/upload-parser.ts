/**
 * Upload throughput and server memory of receiveMultipart.
 *
 *   bun bench/upload-parser.ts [--mib 2048] [--content-length]
 *
 * Spawns a server process (this file with --serve) running Bun.serve + receiveMultipart, streams
 * a multipart body with a file of --mib MiB generated on the fly (1 MiB chunks of pseudo-random
 * bytes; chunked transfer unless --content-length) over loopback, then reports MB/s and the server
 * process's peak RSS (VmHWM), and checks the SHA-256 the server computed and the one of the file
 * on disk against the bytes sent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_REQUEST_BODY_SIZE, MAX_UPLOAD_FILE_BYTES } from "../src/uploads/limits.ts";
import { receiveMultipart } from "../src/uploads/multipart.ts";
import { generatedUpload, MiB, procStatusBytes } from "./lib/generated-upload.ts";

const args = process.argv.slice(2);

if (args[0] === "--serve") serve(args[1]!);
else await main();

function serve(tmpDir: string) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: MAX_REQUEST_BODY_SIZE,
    idleTimeout: 60,
    async fetch(request) {
      try {
        const form = await receiveMultipart(request, {
          tmpDir,
          maxFileBytes: MAX_UPLOAD_FILE_BYTES,
          maxFieldBytes: 64 * 1024,
          maxFields: 50,
          fileField: "file",
        });
        return Response.json({ fields: [...form.fields], file: form.file });
      } catch (error) {
        return Response.json({ error: String(error) }, { status: (error as { status?: number }).status ?? 500 });
      }
    },
  });
  console.log(JSON.stringify({ port: server.port }));
}

function option(name: string, fallback: number): number {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

const status = procStatusBytes;

async function main() {
  const fileMiB = option("--mib", 2048);
  const withLength = args.includes("--content-length");
  const tmpDir = mkdtempSync(join(tmpdir(), "verbatim-upload-bench-"));
  const child = Bun.spawn([process.execPath, import.meta.path, "--serve", tmpDir], { stdout: "pipe", stderr: "inherit" });
  try {
    const reader = child.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const { port } = JSON.parse(first.split("\n")[0]!) as { port: number };

    const upload = generatedUpload(fileMiB, { title: "Benchmark upload" });
    const { body } = upload;

    const baseline = status(child.pid, "VmRSS");
    let sampledPeak = 0;
    const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, status(child.pid, "VmRSS"))), 100);
    const headers: Record<string, string> = { "content-type": upload.contentType };
    if (withLength) headers["content-length"] = String(upload.contentLength);
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body, headers });
    const result = (await response.json()) as { file?: { path: string; bytes: number; sha256: string }; error?: string };
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const peak = status(child.pid, "VmHWM");
    if (!response.ok || !result.file) throw new Error(`upload failed: ${response.status} ${JSON.stringify(result)}`);

    // Verify after the clock stopped: the bytes sent, the server's hash, the file on disk.
    const sent = upload.sha256();
    const onDisk = new Bun.CryptoHasher("sha256");
    for await (const piece of Bun.file(result.file.path).stream()) onDisk.update(piece);
    const disk = onDisk.digest("hex");
    await unlink(result.file.path);

    const bytes = fileMiB * MiB;
    console.log(
      JSON.stringify(
        {
          file_bytes: bytes,
          transfer: withLength ? "content-length" : "chunked",
          seconds: Number(seconds.toFixed(2)),
          mb_per_s: Math.round(bytes / seconds / 1e6),
          server_rss_baseline_mib: Math.round(baseline / MiB),
          server_rss_peak_sampled_mib: Math.round(sampledPeak / MiB),
          server_vmhwm_mib: Math.round(peak / MiB),
          sha256_server_matches: result.file.sha256 === sent && result.file.bytes === bytes,
          sha256_disk_matches: disk === sent,
        },
        null,
        2,
      ),
    );
    if (result.file.sha256 !== sent || disk !== sent) process.exitCode = 1;
  } finally {
    child.kill();
    await child.exited;
    rmSync(tmpDir, { recursive: true, force: true });
  }
}

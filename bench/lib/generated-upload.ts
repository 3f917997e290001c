import { readFileSync } from "node:fs";

export const MiB = 1024 * 1024;

/**
 * A multipart body with a file of `fileMiB` MiB generated on the fly: 1 MiB windows at
 * pseudo-random offsets of a 64 MiB random pool, so nothing of the size of the upload is ever
 * held in memory, and `sha256()` can recompute what was sent.
 */
export function generatedUpload(fileMiB: number, fields: Record<string, string> = {}, fileName = "bench.wav") {
  const pool = new Uint8Array(64 * MiB);
  for (let i = 0; i < pool.length; i += 65536) crypto.getRandomValues(pool.subarray(i, i + 65536));
  // The file starts like a WAV (RIFF....WAVE): the service checks an upload's first bytes and refuses what is no recording.
  const first = new Uint8Array(MiB);
  const chunk = (i: number) => {
    const offset = (Math.imul(i + 1, 2654435761) >>> 0) % (pool.length - MiB);
    if (i !== 0) return pool.subarray(offset, offset + MiB);
    first.set(pool.subarray(offset, offset + MiB));
    first.set(new TextEncoder().encode("RIFF\0\0\0\0WAVE"));
    return first;
  };
  const boundary = "----VerbatimBench" + Math.random().toString(36).slice(2);
  const head = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join("") + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let i = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === -1) controller.enqueue(head);
      else if (i < fileMiB) controller.enqueue(chunk(i));
      else if (i === fileMiB) controller.enqueue(tail);
      else controller.close();
      i++;
    },
  });
  return {
    body,
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + fileMiB * MiB + tail.length,
    fileBytes: fileMiB * MiB,
    sha256() {
      const hash = new Bun.CryptoHasher("sha256");
      for (let j = 0; j < fileMiB; j++) hash.update(chunk(j));
      return hash.digest("hex");
    },
  };
}

/** A /proc/<pid>/status size field (VmRSS, VmHWM) in bytes. */
export function procStatusBytes(pid: number, key: string): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN) * 1024;
}

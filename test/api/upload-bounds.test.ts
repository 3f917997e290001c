// Bounded uploads (issue 8, items 4 and 10): uploads in progress per account are capped, a
// client that vanishes or a disk that fills mid-upload is a 4xx/507 and a warning (never an
// internal error), and bodies or headers that arrive too slowly are cut off.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";
import { wavSizedBytes } from "../helpers/recordings.ts";
import { stalledRequest } from "../helpers/stalled-request.ts";

// Uploads, admin commands and a second server: slow on a busy 2-core machine.
setDefaultTimeout(30_000);

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    args: ["--rate-limits", "standard=100000,pro=100000,anonymous=100000", "--parallel-slots", "standard=2", "--body-idle-timeout", "1"],
  });
});
afterAll(async () => {
  await server.stop();
});

const tmpFiles = (of: TestServer) => {
  try {
    return readdirSync(join(of.dataDir, "tmp"));
  } catch {
    return [];
  }
};
const warnings = (of: TestServer) => of.errorLines.filter((l) => l.includes('"level":"warn"'));
const errors = (of: TestServer) => of.errorLines.filter((l) => l.includes('"level":"error"'));

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(50);
  }
}

/** A multipart upload whose body the test sends bit by bit, and may stop sending. */
function heldUpload(of: TestServer, key: string) {
  const boundary = "held-upload-boundary";
  const encoder = new TextEncoder();
  let push!: (chunk: Uint8Array | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (chunk) => (chunk ? controller.enqueue(chunk) : controller.close());
    },
  });
  const controller = new AbortController();
  const response = fetch(`${of.url}/api/v1/meetings`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": `multipart/form-data; boundary=${boundary}` },
    body,
    signal: controller.signal,
  }).catch((error: unknown) => error as Error);
  push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`));
  push(wavSizedBytes(64 * 1024)); // starts like a recording, or the upload would be refused at its first bytes
  return {
    response,
    more: () => push(new Uint8Array(64 * 1024)),
    finish: () => {
      push(encoder.encode(`\r\n--${boundary}--\r\n`));
      push(null);
    },
    abort: () => controller.abort(),
  };
}

describe("uploads in progress per account", () => {
  test("beyond the plan's slots the next upload is 429 at once; a finished one frees its place", async () => {
    // Both accounts exist before any upload starts: an admin command is a process start, which
    // on a busy machine may outlast the 1 s body idle timeout the held uploads run under.
    const key = await createUserWithKey(server, "uploader@example.com", "all", "standard");
    const otherKey = await createUserWithKey(server, "other-uploader@example.com", "all", "standard");
    const first = heldUpload(server, key);
    const second = heldUpload(server, key);
    const other = heldUpload(server, otherKey);
    // Held uploads keep sending a little, so the idle timeout never ends them during the test.
    const keepAlive = setInterval(() => [first, second, other].forEach((upload) => upload.more()), 250);
    try {
      await eventually(() => tmpFiles(server).length === 3);
      const form = new FormData();
      form.append("file", new Blob([wavSizedBytes(1000)]), "third.wav");
      const third = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
      expect(third.status).toBe(429);
      expect(third.headers.get("retry-after")).toBe("30");
      expect(((await third.json()) as { code: string }).code).toBe("parallel_processing_limit");
      // Another account is not held back by this one's uploads: its own upload was taken (above),
      // and it may start a second one.
      const otherSecond = heldUpload(server, otherKey);
      await eventually(() => tmpFiles(server).length === 4);
      otherSecond.abort();
      clearInterval(keepAlive);
      other.abort();
      first.abort();
      second.abort();
      await Promise.all([first.response, second.response, other.response, otherSecond.response]);
      await eventually(() => tmpFiles(server).length === 0);
      // Places are given back: the account may upload again (refused later for its content, not for the limit).
      const again = await server.api("/api/v1/meetings", { method: "POST", key, body: form });
      expect(again.status).not.toBe(429);
    } finally {
      clearInterval(keepAlive);
    }
  });
});

describe("a client that goes away mid-upload", () => {
  test("is a warning, not an internal error, and leaves no temp file", async () => {
    const key = await createUserWithKey(server, "vanishing@example.com");
    const before = { warnings: warnings(server).length, errors: errors(server).length };
    const upload = heldUpload(server, key);
    await eventually(() => tmpFiles(server).length === 1);
    upload.more();
    upload.abort();
    await upload.response;
    await eventually(() => warnings(server).length > before.warnings);
    expect(warnings(server).at(-1)).toContain("client disconnected before the request body ended");
    expect(errors(server).length).toBe(before.errors);
    await eventually(() => tmpFiles(server).length === 0);
  });
});

describe("bodies that stall", () => {
  /** Sends the request head and the start of a body over a raw socket, then nothing. */
  function stalled(path: string, head: string, start: string) {
    return stalledRequest(server.url, `POST ${path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer ${server.adminKey}\r\n${head}`, start);
  }

  test("an upload that sends nothing for longer than --body-idle-timeout is 408, its temp file removed", async () => {
    // (the reply comes about 1 s after the body stops: the idle timeout of this server)
    const before = warnings(server).length;
    const boundary = "stall";
    const { reply, afterMs } = await stalled(
      "/api/v1/meetings",
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFFxxxxWAVE${"x".repeat(5000)}`,
    );
    expect(reply).toStartWith("HTTP/1.1 408");
    expect(reply).toContain('"code":"request_timeout"');
    expect(afterMs).toBeLessThan(5000);
    expect(warnings(server).length).toBeGreaterThan(before);
    await eventually(() => tmpFiles(server).length === 0);
  });

  test("a JSON body that stalls is 408 too", async () => {
    const { reply, afterMs } = await stalled("/api/v1/feedback", "Content-Type: application/json\r\nContent-Length: 1000\r\n", '{"message":"hel');
    expect(reply).toStartWith("HTTP/1.1 408");
    expect(afterMs).toBeLessThan(5000);
  });

  test("headers trickled a line a second are cut off by the server (Bun closes them within about 12 s)", async () => {
    const url = new URL(server.url);
    let closedAt = 0;
    const started = Date.now();
    const socket = await Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: { data() {}, close() { closedAt = Date.now(); } },
    });
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n`);
    for (let i = 0; i < 25 && !closedAt; i++) {
      await Bun.sleep(1000);
      if (!closedAt) socket.write(`X-Slow-${i}: y\r\n`);
    }
    expect(closedAt).toBeGreaterThan(0);
    expect(closedAt - started).toBeLessThan(20_000);
  }, 30_000);
});

/** A small tmpfs, so the disk really fills; mounting needs root (the CI and development machines run as root). */
function mountTmpfs(megabytes: number): string | null {
  const dir = mkdtempSync(join(tmpdir(), "verbatim-full-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${megabytes}m,mode=0700`, "tmpfs", dir]);
  if (mounted.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return dir;
}

describe("a disk that fills up mid-upload", () => {
  const mountPoint = mountTmpfs(24);
  afterAll(() => {
    if (!mountPoint) return;
    // Lazy: a server still stopping keeps the mount busy for a moment.
    Bun.spawnSync(["umount", "-l", mountPoint]);
    try {
      rmSync(mountPoint, { recursive: true, force: true });
    } catch {
      // Left in the temp folder if still busy; it is empty once unmounted.
    }
  });

  test.skipIf(mountPoint === null)("is 507 insufficient_storage and a warning; nothing is kept", async () => {
    const dataDir = join(mountPoint!, "data");
    mkdirSync(dataDir, { mode: 0o700 });
    // No reserve, so the upload starts and the disk fills while it is written.
    const full = await startServer({ dataDir, args: ["--min-free-disk-percent", "0", "--min-free-disk-gb", "0"] });
    try {
      const form = new FormData();
      form.append("file", new Blob([wavSizedBytes(40 * 1024 * 1024)]), "big.wav");
      const response = await full.api("/api/v1/meetings", { method: "POST", key: full.adminKey, body: form });
      expect(response.status).toBe(507);
      expect(((await response.json()) as { code: string }).code).toBe("insufficient_storage");
      await eventually(() => warnings(full).some((l) => l.includes("the data disk is full")));
      expect(errors(full)).toEqual([]);
      await eventually(() => tmpFiles(full).length === 0);
    } finally {
      await full.stop();
    }
  }, 30_000);
});

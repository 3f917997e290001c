// The harness of the multipart reader's tests (src/uploads/multipart*.test.ts): a Bun server whose
// handler runs receiveMultipart with options from the query string and answers what landed on
// disk, and the builders of hostile bodies. Each test file calls serveMultipartUnderTest().
import { afterAll, beforeAll, expect } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ApiError } from "../../src/errors/api-error.ts";
import { MAX_REQUEST_BODY_SIZE } from "../../src/uploads/limits.ts";
import { receiveMultipart, UploadAborted, type ReceiveOptions } from "../../src/uploads/multipart.ts";

export const MiB = 1024 * 1024;
export const BOUNDARY = "----VerbatimTestBoundary7MA4YWxkTrZu0gW";

export let root: string;
export let server: ReturnType<typeof Bun.serve>;
export let base: string;
/** How the handler's receiveMultipart call ended, per tmp dir name. */
export const outcomes = new Map<string, string>();
let dirCounter = 0;

/**
 * The server under test: receiveMultipart with options from the query string, answering JSON
 * about the form and what actually landed on disk (then deleting it).
 */
export function serveMultipartUnderTest(): void {
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "verbatim-multipart-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: MAX_REQUEST_BODY_SIZE,
    async fetch(request) {
      const query = new URL(request.url).searchParams;
      const dirName = query.get("dir") ?? "default";
      const options: ReceiveOptions = {
        tmpDir: join(root, dirName),
        maxFileBytes: Number(query.get("maxFile") ?? MiB),
        maxFieldBytes: Number(query.get("maxField") ?? 1024),
        maxFields: Number(query.get("maxFields") ?? 10),
        fileField: "file",
      };
      try {
        const form = await receiveMultipart(request, options);
        outcomes.set(dirName, "ok");
        let file: Record<string, unknown> | undefined;
        if (form.file) {
          const onDisk = await Bun.file(form.file.path).bytes();
          file = {
            ...form.file,
            inTmpDir: dirname(form.file.path) === options.tmpDir,
            diskBytes: onDisk.length,
            diskSha256: sha256(onDisk),
          };
          await unlink(form.file.path);
        }
        return Response.json({ fields: [...form.fields], file });
      } catch (error) {
        if (error instanceof ApiError) {
          outcomes.set(dirName, `ApiError:${error.code}`);
          return Response.json({ code: error.code, detail: error.message, errors: error.errors }, { status: error.status });
        }
        outcomes.set(dirName, error instanceof UploadAborted ? "UploadAborted" : `other:${String(error)}`);
        return new Response(String(error), { status: 500 });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => {
  server.stop(true);
  rmSync(root, { recursive: true, force: true });
});
}

// ---------------------------------------------------------------------------------------------
// Helpers

export interface Part {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  contentType?: string;
  /** Replaces the whole Content-Disposition line's value. */
  disposition?: string;
}

export function multipart(parts: Part[], { boundary = BOUNDARY, close = true } = {}): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: `;
    head += part.disposition ?? `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ""}`;
    head += "\r\n";
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    pieces.push(Buffer.from(head + "\r\n"), Buffer.from(part.value), Buffer.from("\r\n"));
  }
  if (close) pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A fresh tmp dir name (under root) for one request. */
export function freshDir(): string {
  return `t${++dirCounter}`;
}

/** Files left in a tmp dir, after a moment for any file operation still under way to land. */
export async function settledLeftIn(dirName: string): Promise<string[]> {
  await Bun.sleep(30);
  return leftIn(dirName);
}

export function leftIn(dirName: string): string[] {
  const dir = join(root, dirName);
  return existsSync(dir) ? readdirSync(dir) : [];
}

export function post(dirName: string, body: RequestInit["body"] | Buffer | Uint8Array, { query = "", contentType = CONTENT_TYPE, headers = {} as Record<string, string> } = {}) {
  return fetch(`${base}/?dir=${dirName}${query}`, {
    method: "POST",
    body: body as BodyInit,
    headers: contentType === "" ? headers : { "content-type": contentType, ...headers },
  });
}

export interface Answer {
  fields?: [string, string[]][];
  file?: {
    path: string;
    filename: string;
    contentType: string;
    bytes: number;
    sha256: string;
    inTmpDir: boolean;
    diskBytes: number;
    diskSha256: string;
  };
  code?: string;
  detail?: string;
  errors?: { field: string; code: string; message: string }[];
}

export async function answer(response: Response, status: number): Promise<Answer> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as Answer;
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Deterministic pseudo-random bytes (mulberry32). */
export function randomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let a = seed >>> 0;
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return out;
}

export function seededInts(seed: number) {
  let a = seed >>> 0;
  return (min: number, max: number) => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return min + (a % (max - min + 1));
  };
}

/** A request body that yields `bytes` in chunks of 1 to 7 bytes (seeded), yielding to the event loop now and then. */
export function tinyChunks(bytes: Uint8Array, seed: number): ReadableStream<Uint8Array> {
  const next = seededInts(seed);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= bytes.length) return controller.close();
      const size = next(1, 7);
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
      if (next(0, 15) === 0) await Bun.sleep(0);
    },
  });
}

export function expectFileMatches(received: Answer["file"], sent: Uint8Array) {
  expect(received).toBeDefined();
  expect(received!.bytes).toBe(sent.length);
  expect(received!.sha256).toBe(sha256(sent));
  expect(received!.diskBytes).toBe(sent.length);
  expect(received!.diskSha256).toBe(sha256(sent));
  expect(received!.inTmpDir).toBe(true);
  expect(received!.path).toMatch(/upload-[0-9a-f]+\.part$/);
}

export async function waitFor(condition: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (condition()) return true;
    await Bun.sleep(10);
  }
  return condition();
}

/** A file body that is hostile to a boundary scanner: near-boundaries, dashes, CRs, CRLFs. */
export function trickyContent(): Uint8Array {
  const near = [
    `\r\n--${BOUNDARY.slice(0, -1)}`,
    `\r\n--${BOUNDARY.slice(0, -1)}X`,
    `\r\n-${BOUNDARY}`,
    `\r--${BOUNDARY}`,
    `\n--${BOUNDARY}`,
    `--${BOUNDARY}`,
    `\r\n\r\n--\r\n--`,
    "\r\r\r\n\r\n-",
    `\r\n--${BOUNDARY.slice(0, 10)}`,
  ];
  const pieces: Uint8Array[] = [Buffer.from(`--${BOUNDARY}`)];
  near.forEach((s, i) => pieces.push(randomBytes(i * 37, i + 1), Buffer.from(s)));
  pieces.push(Buffer.from("\r\n\r"));
  return Buffer.concat(pieces);
}

// ---------------------------------------------------------------------------------------------


/** Sends raw bytes over TCP and returns the status and text of the first response. */
export async function rawExchange(request: string): Promise<{ status: number; text: string }> {
  let text = "";
  const { promise, resolve } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port!,
    socket: {
      data(_, data) {
        text += Buffer.from(data).toString("latin1");
        if (/\r\n\r\n/.test(text) && text.includes("}")) resolve();
      },
      close: () => resolve(),
    },
  });
  socket.write(request);
  await Promise.race([promise, Bun.sleep(3000)]);
  socket.end();
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text };
}

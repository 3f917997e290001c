import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ApiError } from "../errors/api-error.ts";
import { MAX_REQUEST_BODY_SIZE, MAX_UPLOAD_FILE_BYTES } from "./limits.ts";
import { FORM_OVERHEAD_BYTES, receiveMultipart, UploadAborted, type ReceiveOptions } from "./multipart.ts";

const MiB = 1024 * 1024;
const BOUNDARY = "----VerbatimTestBoundary7MA4YWxkTrZu0gW";

let root: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;
/** How the handler's receiveMultipart call ended, per tmp dir name. */
const outcomes = new Map<string, string>();
let dirCounter = 0;

/**
 * The server under test: receiveMultipart with options from the query string, answering JSON
 * about the form and what actually landed on disk (then deleting it).
 */
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

// ---------------------------------------------------------------------------------------------
// Helpers

interface Part {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  contentType?: string;
  /** Replaces the whole Content-Disposition line's value. */
  disposition?: string;
}

function multipart(parts: Part[], { boundary = BOUNDARY, close = true } = {}): Buffer {
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

const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A fresh tmp dir name (under root) for one request. */
function freshDir(): string {
  return `t${++dirCounter}`;
}

/** Files left in a tmp dir, after a moment for any file operation still under way to land. */
async function settledLeftIn(dirName: string): Promise<string[]> {
  await Bun.sleep(30);
  return leftIn(dirName);
}

function leftIn(dirName: string): string[] {
  const dir = join(root, dirName);
  return existsSync(dir) ? readdirSync(dir) : [];
}

function post(dirName: string, body: RequestInit["body"] | Buffer | Uint8Array, { query = "", contentType = CONTENT_TYPE, headers = {} as Record<string, string> } = {}) {
  return fetch(`${base}/?dir=${dirName}${query}`, {
    method: "POST",
    body: body as BodyInit,
    headers: contentType === "" ? headers : { "content-type": contentType, ...headers },
  });
}

interface Answer {
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

async function answer(response: Response, status: number): Promise<Answer> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as Answer;
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Deterministic pseudo-random bytes (mulberry32). */
function randomBytes(length: number, seed: number): Uint8Array {
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

function seededInts(seed: number) {
  let a = seed >>> 0;
  return (min: number, max: number) => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return min + (a % (max - min + 1));
  };
}

/** A request body that yields `bytes` in chunks of 1 to 7 bytes (seeded), yielding to the event loop now and then. */
function tinyChunks(bytes: Uint8Array, seed: number): ReadableStream<Uint8Array> {
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

function expectFileMatches(received: Answer["file"], sent: Uint8Array) {
  expect(received).toBeDefined();
  expect(received!.bytes).toBe(sent.length);
  expect(received!.sha256).toBe(sha256(sent));
  expect(received!.diskBytes).toBe(sent.length);
  expect(received!.diskSha256).toBe(sha256(sent));
  expect(received!.inTmpDir).toBe(true);
  expect(received!.path).toMatch(/upload-[0-9a-f]+\.part$/);
}

async function waitFor(condition: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (condition()) return true;
    await Bun.sleep(10);
  }
  return condition();
}

/** A file body that is hostile to a boundary scanner: near-boundaries, dashes, CRs, CRLFs. */
function trickyContent(): Uint8Array {
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

describe("round trip", () => {
  test("text fields in order, repeated fields collected, file identical on disk", async () => {
    const content = randomBytes(300_000, 1);
    const dir = freshDir();
    const body = multipart([
      { name: "title", value: "Weekly sync — Ünïcode ✓" },
      { name: "tags", value: "a" },
      { name: "language", value: "de" },
      { name: "tags", value: "b" },
      { name: "file", value: content, filename: "sync.mp3", contentType: "audio/mpeg" },
      { name: "tags", value: "" },
    ]);
    const result = await answer(await post(dir, body), 200);
    expect(result.fields).toEqual([
      ["title", ["Weekly sync — Ünïcode ✓"]],
      ["tags", ["a", "b", ""]],
      ["language", ["de"]],
    ]);
    expectFileMatches(result.file, content);
    expect(result.file!.filename).toBe("sync.mp3");
    expect(result.file!.contentType).toBe("audio/mpeg");
    expect(await settledLeftIn(dir)).toEqual([]); // the handler deleted the one it owned
  });

  test("file first, then fields; no Content-Type on the part means application/octet-stream", async () => {
    const content = randomBytes(70_000, 2);
    const result = await answer(
      await post(freshDir(), multipart([{ name: "file", value: content, filename: "a.wav" }, { name: "title", value: "after" }])),
      200,
    );
    expect(result.fields).toEqual([["title", ["after"]]]);
    expectFileMatches(result.file, content);
    expect(result.file!.contentType).toBe("application/octet-stream");
  });

  test("fields only, and an empty form", async () => {
    expect((await answer(await post(freshDir(), multipart([{ name: "title", value: "x" }])), 200)).file).toBeUndefined();
    const empty = await answer(await post(freshDir(), multipart([])), 200);
    expect(empty).toEqual({ fields: [] });
  });

  test("a FormData body built by fetch itself, non-ASCII filename in UTF-8", async () => {
    const content = randomBytes(5000, 3);
    const form = new FormData();
    form.append("title", "Réunion");
    form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type: "audio/mp4" }), "réunion 会议 🎤.m4a");
    const response = await fetch(`${base}/?dir=${freshDir()}`, { method: "POST", body: form });
    const result = await answer(response, 200);
    expect(result.fields).toEqual([["title", ["Réunion"]]]);
    expectFileMatches(result.file, content);
    expect(result.file!.filename).toBe("réunion 会议 🎤.m4a");
    expect(result.file!.contentType).toBe("audio/mp4");
  });

  test("filename* (RFC 8187) wins over filename; quoted-pairs and a quoted boundary with a space", async () => {
    const boundary = "odd boundary'()+_,-./:=?";
    const content = randomBytes(1000, 4);
    const body = multipart(
      [
        {
          name: "file",
          value: content,
          disposition: `form-data; name="file"; filename="fallback.mp3"; filename*=UTF-8''%C3%A9t%C3%A9%20%F0%9F%8E%A4.mp3`,
        },
        { name: "note", value: "x", disposition: 'form-data; name="no\\"te"' },
      ],
      { boundary },
    );
    const result = await answer(
      await post(freshDir(), body, { contentType: `multipart/form-data; charset=utf-8; boundary="${boundary}"` }),
      200,
    );
    expect(result.file!.filename).toBe("été 🎤.mp3");
    expectFileMatches(result.file, content);
    expect(result.fields).toEqual([['no"te', ["x"]]]);
  });

  test("filename* alone makes a file part; a field keeps a leading BOM", async () => {
    const content = randomBytes(10, 41);
    const body = multipart([
      { name: "title", value: "\uFEFFBOM" },
      { name: "file", value: content, disposition: `form-data; name="file"; filename*=utf-8'en'%E2%82%AC%201.mp3` },
    ]);
    const result = await answer(await post(freshDir(), body), 200);
    expect(result.fields).toEqual([["title", ["\uFEFFBOM"]]]);
    expect(result.file!.filename).toBe("€ 1.mp3");
    expectFileMatches(result.file, content);
  });

  test("preamble, transport padding and epilogue are tolerated", async () => {
    const content = randomBytes(100, 5);
    const inner = multipart([{ name: "file", value: content, filename: "f" }]).toString("latin1");
    const body = Buffer.from(
      "This is a preamble.\r\n" + inner.replace(`--${BOUNDARY}\r\n`, `--${BOUNDARY} \t \r\n`) + "an epilogue\r\n",
      "latin1",
    );
    const result = await answer(await post(freshDir(), body), 200);
    expectFileMatches(result.file, content);
  });

  test("a file of exactly maxFileBytes and a field of exactly maxFieldBytes are accepted", async () => {
    const content = randomBytes(MiB, 6);
    const result = await answer(
      await post(freshDir(), multipart([{ name: "title", value: "é".repeat(512) }, { name: "file", value: content, filename: "f" }])),
      200,
    );
    expectFileMatches(result.file, content);
    expect(result.fields![0]![1][0]).toHaveLength(512);
  });
});

describe("chunk boundaries", () => {
  test("1–7 byte chunks over the socket, with content full of near-boundaries, CRs and CRLFs", async () => {
    const tricky = trickyContent();
    for (const seed of [11, 12, 13]) {
      const dir = freshDir();
      const body = multipart([
        { name: "title", value: `--${BOUNDARY.slice(0, -2)}\r\n\r\nline two` },
        { name: "file", value: tricky, filename: "tricky.bin" },
        { name: "tags", value: "\r" },
        { name: "tags", value: "z" },
      ]);
      const result = await answer(await post(dir, tinyChunks(body, seed)), 200);
      expectFileMatches(result.file, tricky);
      expect(result.fields).toEqual([
        ["title", [`--${BOUNDARY.slice(0, -2)}\r\n\r\nline two`]],
        ["tags", ["\r", "z"]],
      ]);
    }
  });

  // In-process Requests: the chunks receiveMultipart sees are exactly the ones enqueued.
  test("every two-way split of a body, and random 1–7 byte chunkings, parse the same", async () => {
    const tricky = trickyContent().subarray(0, 400);
    const body = multipart([
      { name: "a", value: "1" },
      { name: "file", value: tricky, filename: "t" },
      { name: "b", value: "\r\n--" },
    ]);
    const dir = join(root, freshDir());
    const options = { tmpDir: dir, maxFileBytes: MiB, maxFieldBytes: 100, maxFields: 5, fileField: "file" };
    const chunkings: Uint8Array[][] = [];
    for (let split = 0; split <= body.length; split += 1) chunkings.push([body.subarray(0, split), body.subarray(split)]);
    for (let seed = 0; seed < 40; seed++) {
      const next = seededInts(seed);
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < body.length; ) {
        const size = next(1, 7);
        chunks.push(body.subarray(offset, offset + size));
        offset += size;
      }
      chunkings.push(chunks);
    }
    for (const chunks of chunkings) {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk.slice());
          controller.close();
        },
      });
      const request = new Request("http://local/", { method: "POST", body: stream, headers: { "content-type": CONTENT_TYPE } });
      const form = await receiveMultipart(request, options);
      expect([...form.fields]).toEqual([
        ["a", ["1"]],
        ["b", ["\r\n--"]],
      ]);
      expect(form.file!.sha256).toBe(sha256(tricky));
      expect(sha256(await Bun.file(form.file!.path).bytes())).toBe(sha256(tricky));
      await unlink(form.file!.path);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("size limits", () => {
  test("Content-Length over the limit is refused before any body byte arrives", async () => {
    // Headers only: if the server waited for the body, no answer would come.
    const dir = freshDir();
    const { status, text } = await rawExchange(
      `POST /?dir=${dir} HTTP/1.1\r\nHost: x\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${MiB + FORM_OVERHEAD_BYTES + 1}\r\n\r\n`,
    );
    expect(status).toBe(413);
    expect(text).toContain('"code":"file_too_large"');
    expect(text).toContain("1,048,576 bytes");
    expect(await settledLeftIn(dir)).toEqual([]);
  });

  test("a sparse file of maxFileBytes + overhead + 1 (2 GB limit) is refused at once via fetch(Bun.file)", async () => {
    const sparse = join(root, "sparse.bin");
    writeFileSync(sparse, "");
    truncateSync(sparse, MAX_UPLOAD_FILE_BYTES + FORM_OVERHEAD_BYTES + 1);
    const dir = freshDir();
    const started = performance.now();
    const response = await post(dir, Bun.file(sparse), { query: `&maxFile=${MAX_UPLOAD_FILE_BYTES}` });
    const result = await answer(response, 413);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result.code).toBe("file_too_large");
    expect(result.detail).toContain("2 GB (2,000,000,000 bytes)");
    expect(await settledLeftIn(dir)).toEqual([]);
    expect(existsSync(join(root, dir))).toBe(false); // not even the tmp dir was created
    rmSync(sparse);
  });

  test("a chunked upload (no Content-Length) passing the limit is stopped with 413 and the partial file deleted", async () => {
    const dir = freshDir();
    const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n`);
    const piece = randomBytes(64 * 1024, 77);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= 64 * MiB) return controller.close();
        controller.enqueue(piece.slice());
        sent += piece.length;
      },
    });
    const result = await answer(await post(dir, stream), 413);
    expect(result.code).toBe("file_too_large");
    expect(sent).toBeLessThan(64 * MiB); // it did not wait for the whole body
    expect(outcomes.get(dir)).toBe("ApiError:file_too_large");
    expect(existsSync(join(root, dir))).toBe(true); // the file was started ...
    expect(await settledLeftIn(dir)).toEqual([]); // ... and deleted
  });

  test("one byte over maxFileBytes within a Content-Length that passes the first check", async () => {
    const dir = freshDir();
    const result = await answer(await post(dir, multipart([{ name: "file", value: randomBytes(MiB + 1, 7), filename: "f" }])), 413);
    expect(result.code).toBe("file_too_large");
    expect(await settledLeftIn(dir)).toEqual([]);
  });
});

describe("client disconnect", () => {
  test("a client closing mid-file: UploadAborted, partial file deleted", async () => {
    const dir = freshDir();
    const socket = await Bun.connect({ hostname: "127.0.0.1", port: server.port!, socket: { data() {} } });
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\n`;
    socket.write(
      `POST /?dir=${dir} HTTP/1.1\r\nHost: x\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${200_000}\r\n\r\n${head}`,
    );
    socket.write(randomBytes(50_000, 8));
    // The partial file exists while the upload is under way ...
    expect(await waitFor(() => leftIn(dir).length === 1)).toBe(true);
    socket.end();
    // ... and is gone once the server notices the client left.
    expect(await waitFor(() => outcomes.get(dir) === "UploadAborted")).toBe(true);
    expect(await waitFor(() => leftIn(dir).length === 0)).toBe(true);
  });

  test("aborting the caller's signal stops the upload the same way", async () => {
    const dir = join(root, freshDir());
    const controller = new AbortController();
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (pulls++ === 0) c.enqueue(multipart([{ name: "file", value: randomBytes(1000, 9), filename: "f" }], { close: false }));
        else if (pulls === 3) controller.abort();
        else await Bun.sleep(5);
      },
    });
    const request = new Request("http://local/", { method: "POST", body: stream, headers: { "content-type": CONTENT_TYPE } });
    const options = { tmpDir: dir, maxFileBytes: MiB, maxFieldBytes: 100, maxFields: 5, fileField: "file", signal: controller.signal };
    await expect(receiveMultipart(request, options)).rejects.toBeInstanceOf(UploadAborted);
    await Bun.sleep(50);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("refusals", () => {
  test.each([
    ["text/plain", 415, "unsupported_media_type"],
    ["application/json", 415, "unsupported_media_type"],
    ["multipart/mixed; boundary=abc", 415, "unsupported_media_type"],
    ["", 415, "unsupported_media_type"],
    ["multipart/form-data", 400, "malformed_body"],
    ["multipart/form-data; boundary=", 400, "malformed_body"],
    [`multipart/form-data; boundary=${"x".repeat(71)}`, 400, "malformed_body"],
  ])("Content-Type %p → %p %s", async (contentType, status, code) => {
    const dir = freshDir();
    const result = await answer(await post(dir, multipart([{ name: "file", value: "x", filename: "f" }]), { contentType }), status);
    expect(result.code).toBe(code);
    expect(await settledLeftIn(dir)).toEqual([]);
  });

  const truncated = multipart([{ name: "file", value: randomBytes(200_000, 10), filename: "f" }]).subarray(0, 150_000);
  test.each([
    ["truncated in the file (no closing boundary)", truncated],
    ["missing only the final --", multipart([{ name: "file", value: "abc", filename: "f" }], { close: false })],
    ["garbage with no boundary", Buffer.from("just some bytes, no multipart here\r\n")],
    ["empty body", Buffer.alloc(0)],
    ["garbage after a delimiter", Buffer.from(`--${BOUNDARY}xyz\r\n`)],
    ["a part without a name", Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--`)],
    ["a part without Content-Disposition", Buffer.from(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--`)],
    ["a header block over 16 KiB", Buffer.from(`--${BOUNDARY}\r\nX-Pad: ${"p".repeat(17_000)}\r\n\r\nx\r\n--${BOUNDARY}--`)],
    ["a text field that is not UTF-8", multipart([{ name: "title", value: new Uint8Array([0x61, 0xc3, 0x28]) }])],
  ])("malformed_body: %s; nothing left", async (_, body) => {
    const dir = freshDir();
    const result = await answer(await post(dir, body), 400);
    expect(result.code).toBe("malformed_body");
    expect(outcomes.get(dir)).toBe("ApiError:malformed_body");
    expect(await settledLeftIn(dir)).toEqual([]);
  });

  test.each([
    [
      "a second file part (after a complete first one)",
      [
        { name: "file", value: randomBytes(10_000, 11), filename: "one" },
        { name: "file", value: "two", filename: "two" },
      ],
      { field: "file", code: "invalid_value" },
    ],
    ["a file under another name", [{ name: "audio", value: "x", filename: "a.mp3" }], { field: "audio", code: "invalid_type" }],
    [
      "the file field sent as text",
      [
        { name: "title", value: "t" },
        { name: "file", value: "not a file" },
      ],
      { field: "file", code: "invalid_type" },
    ],
    [
      "a field over maxFieldBytes (bytes, not characters)",
      [
        { name: "file", value: randomBytes(5000, 12), filename: "f" },
        { name: "title", value: "é".repeat(513) },
      ],
      { field: "title", code: "too_long" },
    ],
    [
      "more than maxFields values (repeats count)",
      [{ name: "file", value: "x", filename: "f" }, ...Array.from({ length: 11 }, (_, i) => ({ name: i < 5 ? "tags" : `f${i}`, value: "v" }))],
      { field: "f10", code: "too_large" },
    ],
  ] as [string, Part[], { field: string; code: string }][])("validation_error: %s; nothing left", async (_, parts, expected) => {
    const dir = freshDir();
    const result = await answer(await post(dir, multipart(parts)), 400);
    expect(result.code).toBe("validation_error");
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]).toMatchObject(expected);
    expect(await settledLeftIn(dir)).toEqual([]);
  });
});

/** Sends raw bytes over TCP and returns the status and text of the first response. */
async function rawExchange(request: string): Promise<{ status: number; text: string }> {
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

describe("hooks before the file and on its first bytes", () => {
  const request = (body: Uint8Array, chunk = 7) =>
    new Request("http://local/", {
      method: "POST",
      headers: { "content-type": CONTENT_TYPE },
      // Small chunks: the head arrives in pieces, as over a slow line.
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < body.length; at += chunk) controller.enqueue(body.slice(at, at + chunk));
          controller.close();
        },
      }),
    });
  const base = (dir: string): ReceiveOptions => ({ tmpDir: join(root, dir), maxFileBytes: MiB, maxFieldBytes: 1024, maxFields: 10, fileField: "file" });
  const content = randomBytes(50_000, 11);

  test("beforeFile sees the fields sent before the file, and its throw refuses the upload with nothing stored", async () => {
    const dir = freshDir();
    const seen: [string, string[]][][] = [];
    const body = multipart([{ name: "a", value: "1" }, { name: "file", filename: "f.bin", value: content }, { name: "b", value: "2" }]);
    const form = await receiveMultipart(request(body), { ...base(dir), beforeFile: (fields) => void seen.push([...fields]) });
    expect(seen).toEqual([[["a", ["1"]]]]);
    expect([...form.fields]).toEqual([["a", ["1"]], ["b", ["2"]]]);
    await unlink(form.file!.path);
    const refusal = new ApiError("parallel_processing_limit", "No slot.");
    const refused = await receiveMultipart(request(body), { ...base(dir), beforeFile: () => { throw refusal; } }).catch((e: unknown) => e);
    expect(refused).toBe(refusal);
    expect(await settledLeftIn(dir)).toEqual([]);
  });

  test("checkFileHead gets exactly the first headBytes once, however the bytes arrive; a short file whole at its end; its throw removes the file", async () => {
    const dir = freshDir();
    const heads: Uint8Array[] = [];
    const check = { headBytes: 4096, check: (head: Uint8Array) => void heads.push(head.slice()) };
    const form = await receiveMultipart(request(multipart([{ name: "file", filename: "f.bin", value: content }])), { ...base(dir), checkFileHead: check });
    expect(heads).toEqual([content.subarray(0, 4096)]);
    expect(form.file!.sha256).toBe(sha256(content));
    await unlink(form.file!.path);
    heads.length = 0;
    const short = content.subarray(0, 100);
    await unlink((await receiveMultipart(request(multipart([{ name: "file", filename: "s.bin", value: short }])), { ...base(dir), checkFileHead: check })).file!.path);
    expect(heads).toEqual([short]);
    const refusal = new ApiError("unsupported_media", "Not a recording.");
    const refused = await receiveMultipart(request(multipart([{ name: "file", filename: "f.bin", value: content }]), 1000), {
      ...base(dir),
      checkFileHead: { headBytes: 4096, check: () => { throw refusal; } },
    }).catch((e: unknown) => e);
    expect(refused).toBe(refusal);
    expect(await settledLeftIn(dir)).toEqual([]);
  });
});

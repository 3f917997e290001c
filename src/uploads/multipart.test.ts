import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { ApiError } from "../errors/api-error.ts";
import { MAX_UPLOAD_FILE_BYTES } from "./limits.ts";
import { FORM_OVERHEAD_BYTES, receiveMultipart } from "./multipart.ts";
import { BOUNDARY, CONTENT_TYPE, MiB, answer, base, expectFileMatches, freshDir, multipart, outcomes, post, randomBytes, root, seededInts, server, settledLeftIn, sha256, tinyChunks, trickyContent, rawExchange, serveMultipartUnderTest } from "../../test/support/multipart-server.ts";

// The multipart reader: round trips, chunk boundaries and size limits (refusals: multipart-refusals.test.ts).
serveMultipartUnderTest();

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

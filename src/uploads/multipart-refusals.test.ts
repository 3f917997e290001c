import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { ApiError } from "../errors/api-error.ts";
import { receiveMultipart, UploadAborted, type ReceiveOptions } from "./multipart.ts";
import { BOUNDARY, CONTENT_TYPE, MiB, type Part, answer, base, freshDir, leftIn, multipart, outcomes, post, randomBytes, root, server, settledLeftIn, sha256, waitFor, serveMultipartUnderTest } from "../../test/support/multipart-server.ts";

// The multipart reader refuses: a client that disconnects, malformed and over-long forms, and the hooks before the file (round trips: multipart.test.ts).
serveMultipartUnderTest();

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

  test("an async beforeFile is awaited before anything more is read: the file whole when it resolves, nothing read on or stored when it rejects", async () => {
    const dir = freshDir();
    const body = multipart([{ name: "a", value: "1" }, { name: "file", filename: "f.bin", value: content }]);
    const chunks = Math.ceil(body.length / 1000);
    let pulls = 0;
    // One 1000-byte chunk per pull, counted: what the reader asked of the body.
    const counted = () =>
      new Request("http://local/", {
        method: "POST",
        headers: { "content-type": CONTENT_TYPE },
        body: new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              const at = pulls++ * 1000;
              if (at >= body.length) controller.close();
              else controller.enqueue(body.slice(at, at + 1000));
            },
          },
          { highWaterMark: 0 },
        ),
      });
    let admit!: () => void;
    let pullsWhenAsked = -1;
    const receiving = receiveMultipart(counted(), {
      ...base(dir),
      beforeFile: () => {
        pullsWhenAsked = pulls;
        return new Promise<void>((resolve) => (admit = resolve));
      },
    });
    expect(await waitFor(() => pullsWhenAsked >= 0)).toBe(true);
    await Bun.sleep(30);
    expect(pulls).toBe(pullsWhenAsked);
    expect(leftIn(dir)).toEqual([]);
    admit();
    const form = await receiving;
    expect(form.file!.sha256).toBe(sha256(content));
    await unlink(form.file!.path);

    pulls = 0;
    const refusal = new ApiError("parallel_processing_limit", "No slot.");
    const refused = await receiveMultipart(counted(), { ...base(dir), beforeFile: async () => { await Bun.sleep(10); throw refusal; } }).catch((e: unknown) => e);
    expect(refused).toBe(refusal);
    expect(pulls).toBeLessThan(chunks);
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

  test("otherFileFields: another part may carry the one file, with its own limit and no head check; never both", async () => {
    const dir = freshDir();
    const heads: Uint8Array[] = [];
    const seen: string[] = [];
    const options: ReceiveOptions = {
      ...base(dir),
      otherFileFields: { transcript: 1000 },
      checkFileHead: { headBytes: 16, check: (head) => void heads.push(head) },
      beforeFile: (_fields, field) => void seen.push(field),
    };
    const text = new TextEncoder().encode("WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n");
    const form = await receiveMultipart(request(multipart([{ name: "transcript", filename: "call.vtt", value: text }])), options);
    expect(form.file).toMatchObject({ field: "transcript", filename: "call.vtt", bytes: text.length, sha256: sha256(text) });
    expect(seen).toEqual(["transcript"]);
    expect(heads).toEqual([]);
    await unlink(form.file!.path);
    const tooLarge = await receiveMultipart(request(multipart([{ name: "transcript", filename: "t.srt", value: content.subarray(0, 1001) }])), options).catch((e: unknown) => e);
    expect(tooLarge).toMatchObject({ code: "file_too_large", message: "The transcript is larger than its limit of 1,000 bytes. Nothing was kept." });
    const both = await receiveMultipart(
      request(multipart([{ name: "file", filename: "a.wav", value: content.subarray(0, 100) }, { name: "transcript", filename: "t.srt", value: text }])),
      options,
    ).catch((e: unknown) => e);
    expect(both).toMatchObject({ code: "validation_error", errors: [{ field: "transcript", code: "conflict", message: "Send either file or transcript, not both." }] });
    const notAFile = await receiveMultipart(request(multipart([{ name: "transcript", value: "WEBVTT" }])), options).catch((e: unknown) => e);
    expect(notAFile).toMatchObject({ errors: [{ field: "transcript", code: "invalid_type" }] });
    expect(await settledLeftIn(dir)).toEqual([]);
  });
});

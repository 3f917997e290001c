// verbatim models list | install | verify | import (issue 13) against a local HTTP server on
// loopback named by a catalogue of the test's own: progress, resume after a cut, a checksum
// mismatch refused with the partial file removed, a source that sends more than the catalogue's size, the lock of a first verified download, and
// models imported from a folder or a tar archive.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "tar";
import { runCli } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-models-cli-"));
const blob = (seed: number, size: number) => {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7) & 0xff;
  return bytes;
};
const FILES = { good: blob(1, 3_000_000), cut: blob(2, 2_000_000), sha1only: blob(3, 500_000), bad: blob(4, 100_000) };
const digest = (bytes: Uint8Array, algorithm: "sha256" | "sha1") => createHash(algorithm).update(bytes).digest("hex");
const requests: { path: string; range: string | null }[] = [];
let cutNext = true;
let server: ReturnType<typeof Bun.serve>;
let cutServer: Bun.TCPSocketListener<undefined>;
let catalogue: string;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      if (request.url.endsWith("/endless")) {
        // A source that never stops sending, with no length: as a hostile or broken mirror might.
        const chunk = new Uint8Array(64 * 1024);
        return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }));
      }
      if (request.url.endsWith("/oversized")) return new Response(new Uint8Array(300_000));
      const name = new URL(request.url).pathname.slice(1) as keyof typeof FILES;
      const bytes = FILES[name];
      if (!bytes) return new Response("no", { status: 404 });
      const range = request.headers.get("range");
      requests.push({ path: name, range });
      const from = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
      const body = bytes.subarray(from);
      const headers: Record<string, string> = { "Content-Length": String(body.length) };
      if (range) headers["Content-Range"] = `bytes ${from}-${bytes.length - 1}/${bytes.length}`;
      return new Response(body, { status: range ? 206 : 200, headers });
    },
  });
  // The "cut" file comes from a bare TCP server, which can drop the connection after half the
  // declared body the first time (as a flaky line does), and answers Range requests after.
  cutServer = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        const head = data.toString("latin1");
        const range = /range: bytes=(\d+)-/i.exec(head);
        requests.push({ path: "cut", range: range ? `bytes=${range[1]}-` : null });
        const from = range ? Number(range[1]) : 0;
        const body = FILES.cut.subarray(from);
        const status = range ? "206 Partial Content" : "200 OK";
        const extra = range ? `Content-Range: bytes ${from}-${FILES.cut.length - 1}/${FILES.cut.length}\r\n` : "";
        socket.write(`HTTP/1.1 ${status}\r\nContent-Length: ${body.length}\r\n${extra}Connection: close\r\n\r\n`);
        if (cutNext) {
          cutNext = false;
          socket.write(body.subarray(0, Math.floor(body.length / 2)));
          setTimeout(() => socket.end(), 50);
        } else {
          socket.write(body);
          socket.end();
        }
      },
    },
  });
  const url = (name: string) => (name === "cut" ? `http://127.0.0.1:${cutServer.port}/cut` : `http://127.0.0.1:${server.port}/${name}`);
  const entry = (name: keyof typeof FILES, extra: Record<string, unknown>) => ({
    name: `test-${name}`,
    kind: "whisper",
    path: `whisper/${name}.bin`,
    bytes: FILES[name].length,
    sha256: digest(FILES[name], "sha256"),
    url: url(name),
    default: false,
    real: true,
    profiles: [],
    ...extra,
  });
  catalogue = join(dir, "catalogue.json");
  writeFileSync(
    catalogue,
    JSON.stringify({
      models: [
        entry("good", { profiles: ["cpu"] }),
        entry("cut", {}),
        entry("sha1only", { bytes: null, sha256: null, sha1: digest(FILES.sha1only, "sha1") }),
        entry("bad", { sha256: "0".repeat(64) }),
        { ...entry("good", { url: `http://127.0.0.1:${server.port}/endless` }), name: "test-endless", path: "whisper/endless.bin", bytes: 1_000_000 },
        { ...entry("good", { url: `http://127.0.0.1:${server.port}/oversized` }), name: "test-oversized", path: "whisper/oversized.bin", bytes: 200_000 },
        {
          ...entry("good", { url: `http://127.0.0.1:${server.port}/oversized`, archive_member: "model/file.onnx", archive_bytes: 100_000 }),
          name: "test-archived",
          path: "whisper/archived.bin",
        },
      ],
    }),
  );
});
afterAll(() => {
  server.stop(true);
  cutServer.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const models = (...args: string[]) => runCli(["models", ...args, "--catalogue", catalogue]);

test("install --profile: a download with progress lines, checked and put in place; list shows it installed", async () => {
  const target = join(dir, "m1");
  const result = await models("install", "--profile", "cpu", "--models-dir", target);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/test-good: [1-9]\d% \(\d+\.\d of 2\.9 MiB\)/);
  expect(result.stdout).toContain("test-good: 100% (2.9 of 2.9 MiB)");
  expect(result.stdout).toContain("downloaded test-good (whisper/good.bin)");
  expect(readFileSync(join(target, "whisper/good.bin"))).toEqual(Buffer.from(FILES.good));
  const list = JSON.parse((await models("list", "--json", "--models-dir", target)).stdout) as { name: string; installed: boolean }[];
  expect(list.find((m) => m.name === "test-good")?.installed).toBe(true);
  expect(list.find((m) => m.name === "test-cut")?.installed).toBe(false);
  expect((await models("install", "test-good", "--models-dir", target)).stdout).toContain("present");
});

test("a download cut midway keeps its partial file; the next install resumes it with a Range request", async () => {
  const target = join(dir, "m2");
  const first = await models("install", "test-cut", "--models-dir", target);
  expect(first.code).toBe(1);
  expect(existsSync(join(target, "whisper/cut.bin"))).toBe(false);
  expect(existsSync(join(target, "whisper/cut.bin.partial"))).toBe(true);
  const second = await models("install", "test-cut", "--models-dir", target);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain("resumed    test-cut");
  expect(requests.filter((r) => r.path === "cut").at(-1)!.range).toMatch(/^bytes=\d+-$/);
  expect(readFileSync(join(target, "whisper/cut.bin"))).toEqual(Buffer.from(FILES.cut));
  expect(existsSync(join(target, "whisper/cut.bin.partial"))).toBe(false);
});

test("a checksum mismatch is refused: nothing installed, the partial file removed, exit 1", async () => {
  const target = join(dir, "m3");
  const result = await models("install", "test-bad", "--models-dir", target);
  expect(result.code).toBe(1);
  expect(result.stdout).toContain("FAILED     test-bad");
  expect(result.stdout).toContain("checksum");
  expect(existsSync(join(target, "whisper/bad.bin"))).toBe(false);
  expect(existsSync(join(target, "whisper/bad.bin.partial"))).toBe(false);
});

test("a source that sends more than the catalogue's size is cut off there: nothing installed, nothing left on disk", async () => {
  const target = join(dir, "m6");
  for (const name of ["endless", "oversized", "archived"]) {
    const result = await models("install", `test-${name}`, "--models-dir", target);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`FAILED     test-${name}`);
    expect(result.stdout).toContain("sent more than the");
    expect(existsSync(join(target, `whisper/${name}.bin`))).toBe(false);
    expect(existsSync(join(target, `whisper/${name}.bin.partial`))).toBe(false);
  }
});

test("a model with only the publisher's sha1: checked with it, its sha256 locked; verify then names a tampered file", async () => {
  const target = join(dir, "m4");
  expect((await models("install", "test-sha1only", "--models-dir", target)).code).toBe(0);
  const lock = JSON.parse(readFileSync(join(target, "lock.json"), "utf8"));
  expect(lock["whisper/sha1only.bin"]).toMatchObject({ bytes: FILES.sha1only.length, sha256: digest(FILES.sha1only, "sha256") });
  const ok = await models("verify", "--models-dir", target, "--json");
  expect(JSON.parse(ok.stdout).find((r: any) => r.name === "whisper/sha1only.bin")).toEqual({ name: "whisper/sha1only.bin", state: "ok" });
  writeFileSync(join(target, "whisper/sha1only.bin"), FILES.bad.subarray(0, FILES.sha1only.length));
  const bad = await models("verify", "--models-dir", target);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain("PROBLEM  whisper/sha1only.bin");
  expect(bad.stderr).toContain("whisper/sha1only.bin");
});

test("import from a flat folder and from a tar.gz carried in: checked and installed, no download", async () => {
  const carried = join(dir, "usb");
  mkdirSync(carried);
  writeFileSync(join(carried, "good.bin"), FILES.good);
  const before = requests.length;
  const target = join(dir, "m5");
  const fromFolder = await models("import", carried, "--models-dir", target);
  expect(fromFolder.code).toBe(0);
  expect(fromFolder.stdout).toContain("imported  test-good");
  expect(readFileSync(join(target, "whisper/good.bin"))).toEqual(Buffer.from(FILES.good));

  const packed = join(dir, "stage");
  mkdirSync(join(packed, "whisper"), { recursive: true });
  writeFileSync(join(packed, "whisper/sha1only.bin"), FILES.sha1only);
  await create({ gzip: true, file: join(dir, "models.tar.gz"), cwd: packed }, ["whisper"]);
  const fromTar = await models("import", join(dir, "models.tar.gz"), "--models-dir", target);
  expect(fromTar.code).toBe(0);
  expect(fromTar.stdout).toContain("imported  test-sha1only");
  expect(requests.length).toBe(before);

  writeFileSync(join(carried, "bad.bin"), FILES.bad);
  const refused = await models("import", carried, "--models-dir", target);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain("FAILED    test-bad");
});

test("list --json gives what an air-gapped install needs: each entry's source url, size and sha256 (the lock's when the catalogue has none)", async () => {
  const target = join(dir, "m6");
  const listed = async () => JSON.parse((await models("list", "--json", "--models-dir", target)).stdout) as Record<string, unknown>[];
  const before = await listed();
  const good = before.find((m) => m.name === "test-good")!;
  expect(good).toMatchObject({
    path: "whisper/good.bin",
    url: `http://127.0.0.1:${server.port}/good`,
    bytes: FILES.good.length,
    sha256: digest(FILES.good, "sha256"),
    sha256_from: "catalogue",
    archive_member: null,
    installed: false,
  });
  expect(before.find((m) => m.name === "test-archived")).toMatchObject({ archive_member: "model/file.onnx", archive_bytes: 100_000 });
  // No public sha256: listed as unknown, with the publisher's sha1, until a verified download locks one.
  expect(before.find((m) => m.name === "test-sha1only")).toMatchObject({ sha256: null, sha256_from: null, bytes: null, sha1: digest(FILES.sha1only, "sha1") });
  expect((await models("install", "test-sha1only", "--models-dir", target)).code).toBe(0);
  const after = (await listed()).find((m) => m.name === "test-sha1only")!;
  expect(after).toMatchObject({ sha256: digest(FILES.sha1only, "sha256"), sha256_from: "lock", bytes: FILES.sha1only.length, installed: true });

  // What the list says is enough: fetched by its url on "another machine", checked against its sha256, imported here.
  const fetched = new Uint8Array(await (await fetch(good.url as string)).arrayBuffer());
  expect(fetched.length).toBe(good.bytes as number);
  expect(digest(fetched, "sha256")).toBe(good.sha256 as string);
  const carried = join(dir, "carried");
  mkdirSync(carried);
  writeFileSync(join(carried, "good.bin"), fetched);
  expect((await models("import", carried, "--models-dir", target)).code).toBe(0);
  expect((await listed()).find((m) => m.name === "test-good")?.installed).toBe(true);
}, 60_000);

test("list --json of the shipped catalogue: every real model has an https url, a size and a sha256", async () => {
  const listed = JSON.parse((await runCli(["models", "list", "--json", "--models-dir", join(dir, "empty")])).stdout) as Record<string, any>[];
  const real = listed.filter((m) => !m.stand_in && m.url !== null);
  expect(real.length).toBeGreaterThan(3);
  for (const model of real) {
    expect(model.url).toStartWith("https://");
    expect(model.bytes).toBeGreaterThan(0);
    expect(model.sha256).toMatch(/^[0-9a-f]{64}$/);
  }
}, 30_000);

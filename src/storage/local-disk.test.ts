import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localDiskStorage } from "./local-disk.ts";
import { meetingDir } from "./paths.ts";
import { StorageKeyRefused, type Storage } from "./storage.ts";

let root: string;
let storage: Storage;
const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "verbatim-storage-"));
  storage = localDiskStorage(root);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("localDiskStorage", () => {
  test("put then get, under the data dir's layout (meetings/<id>/<name>), owner-only", async () => {
    await storage.put("m1", "transcribe.json", '{"a":1}', "run_1");
    await storage.put("m1", "documents/d1-abc.pdf", new Uint8Array([1, 2, 3]), "run_1");
    expect(text(await storage.get("m1", "transcribe.json"))).toBe('{"a":1}');
    expect([...(await storage.get("m1", "documents/d1-abc.pdf"))!]).toEqual([1, 2, 3]);
    expect(existsSync(join(meetingDir(root, "m1"), "transcribe.json"))).toBe(true);
    expect(statSync(join(meetingDir(root, "m1"), "transcribe.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(meetingDir(root, "m1"), "documents")).mode & 0o777).toBe(0o700);
    expect(storage.localPath("m1", "transcribe.json")).toBe(join(meetingDir(root, "m1"), "transcribe.json"));
    expect(await storage.get("m1", "missing.json")).toBeNull();
    expect(await storage.get("nobody", "recording")).toBeNull();
  });

  test("a put leaves no temporary file, and a second put replaces the first whole", async () => {
    await storage.put("m1", "decode.json", "first", "run_1");
    await storage.put("m1", "decode.json", "second", "run_2");
    expect(text(await storage.get("m1", "decode.json"))).toBe("second");
    expect(readdirSync(meetingDir(root, "m1"))).toEqual(["decode.json"]);
  });

  test("a reader never sees a partial file: concurrent reads during big puts see the old or the new file, whole", async () => {
    const size = 8 * 1024 * 1024;
    const a = new Uint8Array(size).fill(0x61);
    const b = new Uint8Array(size).fill(0x62);
    const aBytes = Buffer.from(a);
    const bBytes = Buffer.from(b);
    await storage.put("m1", "audio.wav", a, "run_0");
    let writing = true;
    const seen: string[] = [];
    const reader = (async () => {
      while (writing) {
        const bytes = Buffer.from((await storage.get("m1", "audio.wav"))!);
        // One of the two files, whole: never a mix of them, never cut short.
        const whole = bytes.equals(aBytes) || bytes.equals(bBytes);
        expect(whole).toBe(true);
        seen.push(String.fromCharCode(bytes[0]!));
      }
    })();
    for (let i = 0; i < 6; i++) await storage.put("m1", "audio.wav", i % 2 === 0 ? b : a, `run_${i + 1}`);
    writing = false;
    await reader;
    expect(seen.length).toBeGreaterThan(0);
  });

  test("two attempts staging the same name write to different files; the commit is the rename", async () => {
    const first = await storage.stage("m1", "audio.wav", "run_a");
    const second = await storage.stage("m1", "audio.wav", "run_b");
    expect(first.path).not.toBe(second.path);
    expect(first.path).toContain("run_a");
    await writeFile(first.path, "from a");
    await writeFile(second.path, "from b");
    expect(await storage.get("m1", "audio.wav")).toBeNull();
    expect(await storage.list("m1")).toEqual([]);
    await second.commit();
    expect(text(await storage.get("m1", "audio.wav"))).toBe("from b");
    await first.commit();
    expect(text(await storage.get("m1", "audio.wav"))).toBe("from a");
    await first.discard();
    await second.discard();
    expect(readdirSync(meetingDir(root, "m1"))).toEqual(["audio.wav"]);
  });

  test("a synced stage commits during the call, and a failed rename throws there", async () => {
    const staged = await storage.stage("m1", "parts/000000", "abc");
    await writeFile(staged.path, "part");
    await staged.sync();
    void staged.commit();
    expect(text(await storage.get("m1", "parts/000000"))).toBe("part");
    // The temporary file is gone: committing again fails at once, not in a promise.
    expect(() => void staged.commit()).toThrow();
  });

  test("range reads, and open for streaming", async () => {
    await storage.put("m1", "recording", "0123456789", "up");
    expect(text(await storage.get("m1", "recording", { start: 2, end: 5 }))).toBe("234");
    expect(text(await storage.get("m1", "recording", { start: 8, end: 100 }))).toBe("89");
    expect(text(await storage.get("m1", "recording", { start: 20, end: 30 }))).toBe("");
    const file = (await storage.open("m1", "recording"))!;
    expect(file.size).toBe(10);
    expect(await file.slice(3, 7).text()).toBe("3456");
    expect(await storage.open("m1", "nothing")).toBeNull();
  });

  test("list by meeting: committed files only, relative names, sorted; a folder's files; meetings()", async () => {
    await storage.put("m1", "recording", "r", "up");
    await storage.put("m1", "parts/000001", "p1", "x");
    await storage.put("m1", "parts/000000", "p0", "x");
    await storage.put("m2", "recording", "r", "up");
    const pending = await storage.stage("m1", "audio.wav", "run_1");
    await writeFile(pending.path, "half");
    expect(await storage.list("m1")).toEqual(["parts/000000", "parts/000001", "recording"]);
    expect(await storage.list("m1", "parts")).toEqual(["parts/000000", "parts/000001"]);
    expect(await storage.list("m1", "documents")).toEqual([]);
    expect(await storage.list("m3")).toEqual([]);
    expect((await storage.meetings()).sort()).toEqual(["m1", "m2"]);
  });

  test("delete: one file, a folder, or everything of a meeting; nothing there is no error", async () => {
    await storage.put("m1", "recording", "r", "up");
    await storage.put("m1", "parts/000000", "p", "x");
    await storage.put("m1", "transcript.json", "t", "x");
    await storage.delete("m1", "transcript.json");
    expect(await storage.list("m1")).toEqual(["parts/000000", "recording"]);
    await storage.delete("m1", "parts");
    expect(await storage.list("m1")).toEqual(["recording"]);
    await storage.delete("m1");
    expect(existsSync(meetingDir(root, "m1"))).toBe(false);
    await storage.delete("m1");
    await storage.delete("m1", "recording");
  });

  test("adopt moves a received upload from tmpDir in; a file from anywhere else is refused", async () => {
    mkdirSync(storage.tmpDir, { recursive: true });
    const upload = join(storage.tmpDir, "upload-1.part");
    writeFileSync(upload, "audio");
    await storage.adopt("m1", "recording", upload);
    expect(existsSync(upload)).toBe(false);
    expect(text(await storage.get("m1", "recording"))).toBe("audio");
    const outside = join(root, "elsewhere");
    writeFileSync(outside, "x");
    await expect(storage.adopt("m1", "recording", outside)).rejects.toBeInstanceOf(StorageKeyRefused);
    await expect(storage.adopt("m1", "recording", join(storage.tmpDir, "..", "elsewhere"))).rejects.toBeInstanceOf(StorageKeyRefused);
    expect(existsSync(outside)).toBe(true);
  });

  test("path traversal is refused: ids and names with '/', '..' or odd characters never leave the meeting's folder", async () => {
    const outside = join(root, "secret");
    writeFileSync(outside, "secret");
    const badIds = ["..", ".", "", "a/b", "../m1", "m1/..", "m\u0000", "m 1", "m\\..\\x"];
    const badNames = ["..", "../recording", "../../secret", "a/../../secret", "/etc/passwd", "", "a//b", "a/", ".hidden", "a\\b", "x~y", "a/./b"];
    for (const id of badIds) {
      await expect(storage.get(id, "recording")).rejects.toBeInstanceOf(StorageKeyRefused);
      await expect(storage.put(id, "recording", "x", "run")).rejects.toBeInstanceOf(StorageKeyRefused);
      await expect(storage.delete(id)).rejects.toBeInstanceOf(StorageKeyRefused);
      await expect(storage.list(id)).rejects.toBeInstanceOf(StorageKeyRefused);
    }
    for (const name of badNames) {
      await expect(storage.get("m1", name)).rejects.toBeInstanceOf(StorageKeyRefused);
      await expect(storage.put("m1", name, "x", "run")).rejects.toBeInstanceOf(StorageKeyRefused);
      await expect(storage.delete("m1", name)).rejects.toBeInstanceOf(StorageKeyRefused);
      await expect(storage.stage("m1", name, "run")).rejects.toBeInstanceOf(StorageKeyRefused);
      expect(() => storage.localPath("m1", name)).toThrow(StorageKeyRefused);
    }
    await expect(storage.put("m1", "recording", "x", "../../x")).rejects.toBeInstanceOf(StorageKeyRefused);
    expect(text(await Bun.file(outside).bytes())).toBe("secret");
    expect(readdirSync(root).sort()).toEqual(["secret"]);
  });

  test("space() reports the storage's disk", () => {
    const { freeBytes, totalBytes } = storage.space();
    expect(totalBytes).toBeGreaterThan(0);
    expect(freeBytes).toBeLessThanOrEqual(totalBytes);
  });
});

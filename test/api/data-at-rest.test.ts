// Data at rest (issue 8, item 7): the data dir and everything the service and its workers write
// there are owner-only, and a data dir made with looser modes is repaired at start.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const ARGS = ["--engines", "test/doubles/engines.ts"];
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
});

/** Every entry under dir (dir included) whose mode lets group or others in. */
function exposed(dir: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if ((stat.mode & 0o077) !== 0) out.push(`${path.slice(dir.length) || "/"} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return out;
}

test("a processed meeting leaves only owner-only files and folders in the data dir", async () => {
  // A data dir path that does not exist yet: the service creates it, under the umask.
  const dataDir = join(mkdtempSync(join(tmpdir(), "verbatim-perm-")), "data");
  const server = await startServer({ args: ARGS, dataDir, env: { TEST_ENGINE_BEHAVIOR: "" } });
  servers.push(server);
  const key = await createUserWithKey(server, "perm@example.com");
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
  for (let i = 0; i < 300; i++) {
    const job = (await (await server.api(`/api/v1/jobs/${created.job.id}`, { key })).json()) as any;
    if (job.status === "completed") break;
    await Bun.sleep(100);
  }
  const files = readdirSync(join(dataDir, "meetings", created.id));
  expect(files).toEqual(expect.arrayContaining(["recording", "audio.wav", "transcript.json"]));
  expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(["verbatim.db", "verbatim.db-wal"]));
  expect(exposed(dataDir)).toEqual([]);
});

test("a data dir readable by others is made owner-only at start, with a warning", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-perm-"));
  chmodSync(dataDir, 0o755);
  mkdirSync(join(dataDir, "meetings", "left-over"), { recursive: true, mode: 0o755 });
  chmodSync(join(dataDir, "meetings"), 0o755);
  writeFileSync(join(dataDir, "notes.txt"), "kept, but private", { mode: 0o644 });
  expect(exposed(dataDir).length).toBeGreaterThan(0);
  const server = await startServer({ dataDir });
  servers.push(server);
  expect(exposed(dataDir)).toEqual([]);
  expect(server.lines.some((line) => /^warning: \d+ file\(s\) or folder\(s\) of the data dir were readable by other users/.test(line))).toBe(true);
});

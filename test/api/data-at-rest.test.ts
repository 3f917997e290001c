// Data at rest (issue 8, item 7): the data dir and everything the service and its workers write
// there are owner-only, and a data dir made with looser modes is repaired at start.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, endedJob, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";
import { onPostgres } from "../support/postgres.ts";

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
  expect((await endedJob(server, key, created.job.id, 30_000)).status).toBe("completed");
  const files = readdirSync(join(dataDir, "meetings", created.id));
  expect(files).toEqual(expect.arrayContaining(["recording", "audio.wav", "transcript.json"]));
  // The SQLite database and its WAL are files of the data dir, checked with the rest; PostgreSQL's
  // files are the database server's, under its own owner-only data directory.
  if (!onPostgres) expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(["verbatim.db", "verbatim.db-wal"]));
  expect(exposed(dataDir)).toEqual([]);
});

test("rendered PDF and DOCX files are owner-only: 0600 in a 0700 folder of the meeting", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "verbatim-perm-")), "data");
  const server = await startServer({ args: ARGS, dataDir, env: { TEST_ENGINE_BEHAVIOR: "" } });
  servers.push(server);
  const key = await createUserWithKey(server, "renders@example.com");
  const waitJob = (id: string) => endedJob(server, key, id, 60_000);
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  const meeting = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
  expect((await waitJob(meeting.job.id)).status).toBe("completed");
  const queued = (await (await server.api(`/api/v1/meetings/${meeting.id}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } })).json()) as any;
  const job = await waitJob(queued.id);
  expect(job.status).toBe("completed");
  for (const format of ["pdf", "docx"]) {
    const response = await server.api(`/api/v1/documents/${job.document_id}?format=${format}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-render-cache")).toBe("miss");
  }
  const renders = join(dataDir, "meetings", meeting.id, "documents");
  const modes = Object.fromEntries(readdirSync(renders).map((name) => [name.replace(/-[0-9a-f]+\./, "-<key>."), (lstatSync(join(renders, name)).mode & 0o777).toString(8)]));
  expect(modes).toEqual({ [`${job.document_id}-<key>.pdf`]: "600", [`${job.document_id}-<key>.docx`]: "600" });
  expect((lstatSync(renders).mode & 0o777).toString(8)).toBe("700");
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

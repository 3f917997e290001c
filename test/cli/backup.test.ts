// verbatim backup and restore (issue 13, operations): a backup taken while the server runs,
// restored into a fresh folder and served by a fresh server, with meetings, transcripts, reports,
// documents, webhook endpoints and ledger lines all there; the refusals of restore.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, ROOT, runCli, startServer, type TestServer } from "../helpers/server.ts";
import { LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const scratch = mkdtempSync(join(tmpdir(), "verbatim-backup-"));
const ARGS = ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000", "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE];
let original: TestServer;
let receiver: Receiver;
let key: string;
let meetingId: string;
let documentId: string;
let endpointId: string;

beforeAll(async () => {
  receiver = startReceiver();
  original = await startServer({ args: ARGS, env: { TEST_ENGINE_BEHAVIOR: "" }, dataDir: join(scratch, "original") });
  key = await createUserWithKey(original, "archivist@firm.example");
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "m.wav");
  form.append("title", "Conseil d'administration");
  const meeting = (await (await original.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
  meetingId = meeting.id;
  const wait = async (jobId: string) => {
    for (let i = 0; i < 300; i++) {
      const job = (await (await original.api(`/api/v1/jobs/${jobId}`, { key })).json()) as any;
      if (job.status === "completed") return job;
      await Bun.sleep(50);
    }
    throw new Error("job did not complete");
  };
  await wait(meeting.job.id);
  const doc = (await (await original.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } })).json()) as any;
  documentId = (await wait(doc.id)).document_id;
  expect((await original.api(`/api/v1/documents/${documentId}?format=pdf`, { key })).status).toBe(200);
  endpointId = ((await (await original.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: receiver.url, events: ["*"] } })).json()) as any).id;
}, 60_000);
afterAll(async () => {
  await original.stop();
  receiver.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test("backup while the server runs, restore into a fresh folder, and a fresh server serves everything", async () => {
  const archive = join(scratch, "verbatim.tar.gz");
  const backup = await runCli(["backup", "--to", archive, "--data-dir", original.dataDir]);
  expect(backup.code).toBe(0);
  expect(backup.stdout).toContain("backup written");
  expect(statSync(archive).mode & 0o077).toBe(0);

  const restoredDir = join(scratch, "restored");
  const restore = await runCli(["restore", "--from", archive, "--data-dir", restoredDir]);
  expect(restore.code).toBe(0);
  expect(statSync(join(restoredDir, "verbatim.db")).mode & 0o077).toBe(0);

  const restored = await startServer({ args: ARGS, env: { TEST_ENGINE_BEHAVIOR: "" }, dataDir: restoredDir });
  try {
    const meeting = (await (await restored.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as any;
    expect(meeting).toMatchObject({ id: meetingId, title: "Conseil d'administration", status: "completed", has_transcript: true, has_summary: true });
    expect(meeting.documents.map((d: any) => d.id)).toEqual([documentId]);
    const transcript = (await (await restored.api(`/api/v1/meetings/${meetingId}/transcript`, { key })).json()) as any;
    expect(transcript.segments.length).toBeGreaterThan(0);
    const pdf = await restored.api(`/api/v1/documents/${documentId}?format=pdf`, { key });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("x-render-cache")).toBe("hit"); // the render came along
    const endpoints = (await (await restored.api("/api/v1/webhook_endpoints", { key })).json()) as any;
    expect(endpoints.data.map((e: any) => e.id)).toEqual([endpointId]);
    const before = (await (await original.api("/api/v1/usage/ledger", { key })).json()) as any;
    const after = (await (await restored.api("/api/v1/usage/ledger", { key })).json()) as any;
    expect(after.data.map((l: any) => l.id)).toEqual(before.data.map((l: any) => l.id));
    expect(after.data.length).toBeGreaterThanOrEqual(3); // transcription, report, document
    // The recording itself came along: a new document from it works, and so would reprocessing.
    expect(statSync(join(restoredDir, "meetings", meetingId, "recording")).size).toBe(statSync(join(original.dataDir, "meetings", meetingId, "recording")).size);
  } finally {
    await restored.stop();
  }
}, 60_000);

test("restore refuses a non-empty folder without --force, and a file that is not a backup", async () => {
  const archive = join(scratch, "again.tar.gz");
  expect((await runCli(["backup", "--to", archive, "--data-dir", original.dataDir])).code).toBe(0);
  const busy = join(scratch, "busy");
  expect((await runCli(["restore", "--from", archive, "--data-dir", busy])).code).toBe(0);
  const refused = await runCli(["restore", "--from", archive, "--data-dir", busy]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("not empty");
  expect((await runCli(["restore", "--from", archive, "--data-dir", busy, "--force"])).code).toBe(0);

  const junk = join(scratch, "junk.tar.gz");
  writeFileSync(junk, "not an archive");
  const notBackup = await runCli(["restore", "--from", junk, "--data-dir", join(scratch, "never")]);
  expect(notBackup.code).toBe(1);
  expect(notBackup.stderr).toContain("not a Verbatim backup");
});

// POST /v1/meetings with a transcript part (issue 23 item 5) over real HTTP: transcripts written
// by Teams, Zoom and Meet, and SubRip files, become meetings that behave as transcribed ones
// (participants, report, documents, search, export), without a recording. Engines are the test doubles.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createUserWithKey, endedJob, expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const FIXTURES = join(ROOT, "test", "fixtures", "transcripts", "import");
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000"], env: { TEST_ENGINE_BEHAVIOR: "" } });
  key = await createUserWithKey(server, "importer@example.com");
});
afterAll(async () => {
  await server.stop();
});

type Json = any;

function importForm(file: string | Uint8Array, fileName: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("transcript", new Blob([typeof file === "string" ? file : new Uint8Array(file)]), fileName);
  return form;
}

const post = (form: FormData, as = key, headers: Record<string, string> = {}) => server.api("/api/v1/meetings", { method: "POST", key: as, body: form, headers });

/** Imports a fixture and waits for its job: the meeting as it ends. */
async function imported(name: string, fields: Record<string, string> = {}): Promise<Json> {
  const response = await post(importForm(new Uint8Array(readFileSync(join(FIXTURES, name))), name, fields));
  expect(response.status).toBe(202);
  const created = (await response.json()) as Json;
  expect(created).toMatchObject({ object: "meeting", status: "queued", source: "text", has_transcript: true, job: { kind: "meeting_processing", status: "queued" } });
  const job = await endedJob(server, key, created.job.id);
  expect(job.status).toBe("completed");
  return (await (await server.api(`/api/v1/meetings/${created.id}`, { key })).json()) as Json;
}

const names = (meeting: Json) => meeting.participants.map((p: Json) => [p.name, p.speaker_labels]);

describe("each format becomes a completed meeting with participants, a report, search and export", () => {
  const cases = [
    { file: "teams.vtt", people: ["Alice Martin", "Bob Dupont", "Chloé Nguyen"], phrase: "Halvorsen contract", search: "Halvorsen", duration: 63 },
    { file: "zoom.vtt", people: ["Priya Raman", "Tom O'Brien"], phrase: "second replica of the ledger database", search: "replica", duration: 24 },
    { file: "named.srt", people: ["Marta Kowalska", "James Okafor"], phrase: "procurement of the new scanners", search: "scanners", duration: 14 },
    { file: "meet.sbv", people: ["Hannah Schmidt", "Lucas Moreau", "Sofia Rossi"], phrase: "usability tests", search: "usability", duration: 14 },
    { file: "meet.txt", people: ["Hannah Schmidt", "Lucas Moreau", "Sofia Rossi"], phrase: "onboarding redesign in the June release", search: "migration", duration: 300 },
  ];
  for (const c of cases) {
    test(c.file, async () => {
      const meeting = await imported(c.file, { title: `Imported ${c.file}`, language: "en" });
      expect(meeting).toMatchObject({ status: "completed", source: "text", has_transcript: true, has_summary: true, duration_seconds: c.duration });
      expect(meeting.summary).not.toBeNull();
      expect(names(meeting)).toEqual(c.people.map((name, i) => [name, [`SPEAKER_0${i}`]]));

      const transcript = (await (await server.api(`/api/v1/meetings/${meeting.id}/transcript`, { key })).json()) as Json;
      expect(transcript.segments.map((s: Json) => s.text).join(" ")).toContain(c.phrase);
      expect(transcript.segments[0].speaker_name).toBe(c.people[0]);
      const srt = await (await server.api(`/api/v1/meetings/${meeting.id}/transcript?format=srt`, { key })).text();
      expect(srt).toContain(`${c.people[0]}: `);

      const found = (await (await server.api(`/api/v1/meetings?q=${encodeURIComponent(c.search)}`, { key })).json()) as Json;
      expect(found.data.map((m: Json) => m.id)).toContain(meeting.id);

      const bundle = (await (await server.api(`/api/v1/meetings/${meeting.id}/export?lang=en`, { key })).json()) as Json;
      const exported = bundle.parts.map((p: Json) => p.content).join("\n");
      expect(exported).toContain(c.phrase);
      expect(exported).toContain(`- ${c.people[1]} (SPEAKER_01)`);
    });
  }

  test("a phrase of the transcript finds it; no audio is metered", async () => {
    const meeting = await imported("named.srt");
    const found = await server.api(`/api/v1/meetings?q=${encodeURIComponent("archive digitisation")}`, { key });
    expect(((await found.json()) as Json).data.map((m: Json) => m.id)).toContain(meeting.id);
    const job = (await (await server.api(`/api/v1/jobs/${meeting.job.id}`, { key })).json()) as Json;
    // A report from the words given: no audio was metered.
    expect(job.usage?.audio_seconds ?? 0).toBe(0);
  });
});

describe("as a transcribed meeting", () => {
  test("documents asked for are written after the report; given participants are the speakers of their name", async () => {
    const meeting = await imported("teams.vtt", {
      document_templates: "tpl_minutes",
      participants: JSON.stringify([{ name: "alice martin", email: "alice@example.com" }, { name: "Dana Lee" }]),
      tags: "import,teams",
    });
    expect(meeting.tags).toEqual(["import", "teams"]);
    expect(meeting.participants.map((p: Json) => [p.name, p.email, p.speaker_labels])).toEqual([
      ["alice martin", "alice@example.com", ["SPEAKER_00"]],
      ["Dana Lee", null, []],
      ["Bob Dupont", null, ["SPEAKER_01"]],
      ["Chloé Nguyen", null, ["SPEAKER_02"]],
    ]);
    const job = (await (await server.api(`/api/v1/jobs/${meeting.job.id}`, { key })).json()) as Json;
    expect(job.document_templates).toEqual(["tpl_minutes"]);
    expect(job.document_job_ids).toHaveLength(1);
    expect((await endedJob(server, key, job.document_job_ids[0])).status).toBe("completed");
    const documents = (await (await server.api(`/api/v1/meetings/${meeting.id}`, { key })).json()) as Json;
    expect(documents.documents).toHaveLength(1);
  });

  test("transcribe_only: completed as stored, with no job and no report", async () => {
    const response = await post(importForm(readFileSync(join(FIXTURES, "zoom.vtt"), "utf8"), "zoom.vtt", { transcribe_only: "true" }));
    expect(response.status).toBe(202);
    const meeting = (await response.json()) as Json;
    expect(meeting).toMatchObject({ status: "completed", transcribe_only: true, has_transcript: true, has_summary: false, job: null, duration_seconds: 24 });
    await expectProblem(await server.api(`/api/v1/meetings/${meeting.id}/summary`, { key }), 409, "summary_not_ready");
    expect((await server.api(`/api/v1/meetings/${meeting.id}/transcript?format=vtt`, { key })).status).toBe(200);
  });

  test("source text is accepted with a transcript; an Idempotency-Key replays the first answer", async () => {
    const form = () => importForm(readFileSync(join(FIXTURES, "named.srt"), "utf8"), "named.srt", { source: "text" });
    const first = await post(form(), key, { "Idempotency-Key": "import-once" });
    expect(first.status).toBe(202);
    const again = await post(form(), key, { "Idempotency-Key": "import-once" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as Json).id).toBe(((await first.json()) as Json).id);
  });
});

describe("refused", () => {
  test("a malformed file: 400 whose detail names the line and what was expected", async () => {
    const body = await expectProblem(await post(importForm(readFileSync(join(FIXTURES, "bad-timing.srt")), "bad-timing.srt")), 400, "validation_error");
    expect(body.detail).toBe(
      'The transcript could not be read: line 6: SubRip: expected a cue timing such as 00:00:01,000 --> 00:00:04,000, found "00:00:05,000 -> 00:00:08,000".',
    );
    expect(body.errors).toEqual([{ field: "transcript", code: "invalid_format", message: body.detail }]);
    const vtt = await expectProblem(await post(importForm(readFileSync(join(FIXTURES, "bad-cue.vtt")), "bad-cue.vtt")), 400, "validation_error");
    expect(vtt.detail).toContain("line 7: WebVTT:");
    const binary = await expectProblem(await post(importForm(new Uint8Array([0x52, 0x49, 0x46, 0x46, 0xff, 0xfe, 0, 0]), "call.vtt")), 400, "validation_error");
    expect(binary.detail).toContain("line 1:");
  });

  test("over 1 MiB: 413 file_too_large; empty: 400", async () => {
    const big = `1\n00:00:01,000 --> 00:00:02,000\n${"word ".repeat(220_000)}\n`;
    const body = await expectProblem(await post(importForm(big, "big.srt")), 413, "file_too_large");
    expect(body.detail).toBe("The transcript is larger than its limit of 1,048,576 bytes. Nothing was kept.");
    await expectProblem(await post(importForm("", "empty.vtt")), 400, "validation_error");
  });

  test("exactly one of file, transcript and audio_url; source is text or nothing", async () => {
    const both = importForm("WEBVTT\n", "a.vtt");
    both.append("file", new Blob([new Uint8Array(100)]), "a.wav");
    const conflict = await expectProblem(await post(both), 400, "validation_error");
    expect(conflict.errors).toEqual([{ field: "file", code: "conflict", message: "Send either transcript or file, not both." }]);
    const withUrl: Json = await expectProblem(await post(importForm("WEBVTT\n", "a.vtt", { audio_url: "https://example.com/a.mp3" })), 400, "validation_error");
    expect(withUrl.errors[0]).toMatchObject({ field: "audio_url", message: "Send a transcript or an audio_url, not both." });
    const wrongSource: Json = await expectProblem(await post(importForm("Alice: hi", "a.txt", { source: "upload" })), 400, "validation_error");
    expect(wrongSource.errors[0]).toMatchObject({ field: "source" });
    const textWithFile = new FormData();
    textWithFile.append("source", "text");
    textWithFile.append("file", new Blob([new Uint8Array(100)]), "a.wav");
    expect(((await expectProblem(await post(textWithFile), 400, "validation_error")) as Json).errors[0]).toMatchObject({ field: "source" });
    const nothing = new FormData();
    nothing.append("source", "text");
    const missing: Json = await expectProblem(await post(nothing), 400, "validation_error");
    expect(missing.errors[0]).toMatchObject({ field: "file", code: "required" });
    const json = await server.api("/api/v1/meetings", { method: "POST", key, json: { transcript: "WEBVTT" } });
    expect(((await expectProblem(json, 400, "validation_error")) as Json).errors[0]).toMatchObject({ field: "transcript" });
  });

  test("a participant holding a label the transcript gives someone else is 400", async () => {
    const response = await post(importForm(readFileSync(join(FIXTURES, "zoom.vtt")), "zoom.vtt", { participants: JSON.stringify([{ name: "Eve", speaker_labels: ["SPEAKER_01"] }]) }));
    const body: Json = await expectProblem(response, 400, "validation_error");
    expect(body.errors[0]).toMatchObject({ field: "participants[0].speaker_labels", code: "duplicate_label", message: "SPEAKER_01 is the transcript's speaker Tom O'Brien." });
  });

  test("another account sees nothing of an imported meeting", async () => {
    const meeting = await imported("zoom.vtt", { title: "Private import" });
    const stranger = await createUserWithKey(server, "stranger@example.com");
    for (const path of ["", "/transcript", "/summary", "/export", "/participants"]) {
      await expectProblem(await server.api(`/api/v1/meetings/${meeting.id}${path}`, { key: stranger }), 404, "not_found");
    }
    const list = (await (await server.api("/api/v1/meetings?q=replica", { key: stranger })).json()) as Json;
    expect(list.data).toEqual([]);
  });

  test("write:meetings is needed", async () => {
    const reader = await createUserWithKey(server, "reader@example.com", "read:meetings");
    await expectProblem(await post(importForm("Alice: hi", "a.txt"), reader), 403, "insufficient_scope");
  });
});

// GET /v1/meetings/{id}/export over real HTTP (SPEC 4): the bundle of a processed meeting, its
// formats, limits, scopes and refusals. Engines are the test doubles.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createUserWithKey, endedJob, expectProblem, startServer, type TestServer, SHARED_FIXTURES } from "../helpers/server.ts";
import { undecodableRecording } from "../helpers/recordings.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000"], env: { TEST_ENGINE_BEHAVIOR: "" } });
  key = await createUserWithKey(server, "exporter@example.com");
});
afterAll(async () => {
  await server.stop();
});

async function processed(fields: Record<string, string> = {}, file: Blob = Bun.file(FIXTURE)): Promise<{ id: string; status: string }> {
  const form = new FormData();
  form.append("file", file, "meeting.wav");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as { id: string; job: { id: string } };
  const job = await endedJob(server, key, created.job.id, 30_000);
  return { id: created.id, status: job.status };
}

describe("GET /v1/meetings/{id}/export", () => {
  let meetingId: string;
  beforeAll(async () => {
    meetingId = (await processed({ title: "Comité de pilotage", participants: JSON.stringify([{ name: "Zoé", speaker_labels: ["SPEAKER_00"] }]) })).id;
  });

  test("json: parts within max_tokens, standing alone, with the report and the diarized transcript", async () => {
    const response = await server.api(`/api/v1/meetings/${meetingId}/export?max_tokens=2000`, { key });
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as any;
    expect(bundle).toMatchObject({ object: "export", meeting_id: meetingId, max_tokens: 2000 });
    expect(bundle.tokenizer).toStartWith("o200k_base");
    expect(bundle.priming_prompt).toContain("Vous allez recevoir");
    const text = bundle.parts.map((p: any) => p.content).join("\n");
    expect(text).toContain("## Compte rendu IA");
    expect(text).toContain("- Zoé (SPEAKER_00)");
    expect(text).toMatch(/^\[00:00:0\d\] Zoé: segment number0 spoken here$/m);
    for (const part of bundle.parts) {
      expect(part.tokens).toBeLessThanOrEqual(2000);
      expect(part.content).toStartWith(`# Export de réunion: "Comité de pilotage" (${meetingId}), partie ${part.part}/${bundle.parts.length}`);
    }
    expect(bundle.total_tokens).toBeGreaterThan(bundle.parts.reduce((s: number, p: any) => s + p.tokens, 0));
  });

  test("md with lang=en: the English priming prompt, then --- Part i/n --- lines", async () => {
    const response = await server.api(`/api/v1/meetings/${meetingId}/export?format=md&lang=en`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const md = await response.text();
    expect(md).toStartWith(`You are about to receive the export of a meeting, "Comité de pilotage", in 1 part.`);
    expect(md).toContain("\n--- Part 1/1 ---\n# Meeting export:");
  });

  test("max_tokens outside 2000 to 200000, or a lang other than en/fr, is 400 validation_error", async () => {
    for (const query of ["max_tokens=1999", "max_tokens=200001", "max_tokens=abc", "lang=de", "format=pdf"]) {
      await expectProblem(await server.api(`/api/v1/meetings/${meetingId}/export?${query}`, { key }), 400, "validation_error");
    }
  });

  test("needs read:transcripts as well as read:meetings; another account's meeting is 404", async () => {
    const meetingsOnly = await createUserWithKey(server, "meetings-only@example.com", "read:meetings");
    await expectProblem(await server.api(`/api/v1/meetings/${meetingId}/export`, { key: meetingsOnly }), 403, "insufficient_scope");
    const stranger = await createUserWithKey(server, "stranger@example.com");
    await expectProblem(await server.api(`/api/v1/meetings/${meetingId}/export`, { key: stranger }), 404, "not_found");
  });

  test("a transcribe_only meeting exports without a report; one without a transcript is 409", async () => {
    const transcribeOnly = await processed({ transcribe_only: "true" });
    const bundle = (await (await server.api(`/api/v1/meetings/${transcribeOnly.id}/export`, { key })).json()) as any;
    expect(bundle.parts[0].content).not.toContain("## Compte rendu IA");
    expect(bundle.parts[0].content).toContain("## Transcription");
    const junk = await processed({}, new Blob([undecodableRecording()]));
    expect(junk.status).toBe("failed");
    await expectProblem(await server.api(`/api/v1/meetings/${junk.id}/export`, { key }), 409, "transcript_not_ready");
  });
});

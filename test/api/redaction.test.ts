// Personal-data redaction through real HTTP (issue 23, item 1): a meeting whose words hold an
// email, a phone number, a payment card, an IBAN and a participant's name is stored, shown,
// exported, searched and written about with placeholders only; no file of the data dir (nor, on
// PostgreSQL, any row of the database) holds a raw value once it has completed, while the server
// runs; with audio, the stored recording is silent inside each redacted word and unchanged
// outside. The transcriber double answers a scripted transcript (TEST_ENGINE_TRANSCRIPT) over a
// tone recording, so the words and their times are known.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseOf } from "../helpers/query.ts";
import { createUserWithKey, endedJob, expectProblem, startServer, type TestServer } from "../helpers/server.ts";
import { DIGITAL_SILENCE_DB, levelOf, writeTone } from "../support/audio-level.ts";
import { checkpointIntoMainFile, needlesInFiles } from "../support/data-dir-scan.ts";
import { onPostgres } from "../support/postgres.ts";
import { needlesInPostgresRows } from "../support/postgres-scan.ts";

const PARTICIPANT = "Quillon Marchetti";
const RAW = {
  email: "quillon.zephyr@firm.example",
  phone: "+33 6 12 34 56 78",
  card: "4111 1111 1111 1111",
  iban: "FR76 3000 6000 0112 3456 7890 189",
};
/** How each raw value could sit in a file besides as spoken: digits run together, as a normalizer would keep them. */
const NEEDLES = [...Object.values(RAW), "4111111111111111", "+33612345678", "FR7630006000011234567890189", "quillon.zephyr"];

/** Words at known times (seconds): what the transcriber double answers for the recording. */
type Word = [text: string, start: number, end: number];
const SEGMENTS: Word[][] = [
  [["Please", 1, 1.5], ["write", 1.5, 2], ["to", 2, 2.5], [RAW.email, 2.5, 3], ["or", 3, 3.5], ["call", 3.5, 4], ["+33", 4, 4.5], ["6", 4.5, 4.6], ["12", 4.6, 4.7], ["34", 4.7, 4.8], ["56", 4.8, 4.9], ["78", 4.9, 5], ["today", 5, 6]],
  [["Marchetti", 7, 7.5], ["paid", 7.5, 8], ["with", 8, 8.5], ["card", 8.5, 9], ["4111", 9, 9.25], ["1111", 9.25, 9.5], ["1111", 9.5, 9.75], ["1111", 9.75, 10], ["yesterday", 10, 11], ["evening", 11, 12]],
  [["Transfer", 13, 13.5], ["to", 13.5, 14], ["FR76", 14, 14.25], ["3000", 14.25, 14.5], ["6000", 14.5, 14.75], ["0112", 14.75, 15], ["3456", 15, 15.25], ["7890", 15.25, 15.5], ["189", 15.5, 15.75], ["please", 15.75, 17]],
];
/** The redacted words' own spans: silent once processed (the pad only widens them). */
const REDACTED_SPANS: [number, number][] = [[2.5, 3], [4, 5], [7, 7.5], [9, 10], [14, 15.75]];
/** Stretches clear of every padded span: as loud as the original. */
const KEPT_SPANS: [number, number][] = [[0, 2.3], [3.2, 3.8], [5.2, 6.8], [7.7, 8.8], [10.2, 13.8], [16, 18]];

const work = mkdtempSync(join(tmpdir(), "verbatim-redaction-work-"));
const dataDir = mkdtempSync(join(tmpdir(), "verbatim-redaction-"));
const tone = join(work, "tone.wav");
let server: TestServer;
let key: string;
let meetingId: string;

function scriptedTranscript(): string {
  const path = join(work, "transcript.json");
  const segments = SEGMENTS.map((words) => ({
    start: words[0]![1],
    end: words.at(-1)![2],
    text: words.map(([text]) => ` ${text}`).join(""),
    words: words.map(([text, start, end]) => ({ text: ` ${text}`, start, end })),
  }));
  writeFileSync(path, JSON.stringify(segments));
  return path;
}

async function createMeeting(fields: Record<string, string>): Promise<Response> {
  const form = new FormData();
  form.append("file", Bun.file(tone), "call.wav");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return server.api("/api/v1/meetings", { method: "POST", key, body: form });
}

async function processed(fields: Record<string, string>): Promise<any> {
  const response = await createMeeting(fields);
  expect(response.status).toBe(202);
  const created = (await response.json()) as any;
  expect((await endedJob(server, key, created.job.id)).status).toBe("completed");
  return (await (await server.api(`/api/v1/meetings/${created.id}`, { key })).json()) as any;
}

/** The raw values (and the participant's name when asked) found in a text. */
function rawIn(text: string, withName = true): string[] {
  const lower = text.toLowerCase();
  return [...NEEDLES, ...(withName ? ["Marchetti"] : [])].filter((needle) => lower.includes(needle.toLowerCase()));
}

beforeAll(async () => {
  writeTone(tone, 18, 44_100);
  server = await startServer({
    dataDir,
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000"],
    env: {
      TEST_ENGINE_BEHAVIOR: "",
      TEST_ENGINE_TRANSCRIPT: scriptedTranscript(),
      VERBATIM_WORKER_ENV: "TEST_ENGINE_BEHAVIOR,VERBATIM_TEST_MARK,TEST_ENGINE_TRANSCRIPT",
    },
  });
  key = await createUserWithKey(server, "privacy@example.com");
  const meeting = await processed({
    title: "Client call",
    participants: JSON.stringify([{ name: PARTICIPANT }]),
    redact_pii: JSON.stringify({ entities: ["person", "email", "phone", "payment_card", "iban"], audio: true }),
  });
  meetingId = meeting.id;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe("a redacted meeting", () => {
  test("says what was redacted, with counts, in the meeting object", async () => {
    const meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as any;
    expect(meeting.redaction).toEqual({
      applied: true,
      requested: ["person", "email", "phone", "payment_card", "iban"],
      entities: { person: 1, email: 1, phone: 1, payment_card: 1, iban: 1 },
      audio: true,
    });
  });

  test("its transcript holds placeholders only, in all five formats, and the text formats say so", async () => {
    const json = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key })).json()) as any;
    expect(json.redaction).toMatchObject({ applied: true, audio: true });
    const text = json.segments.map((s: any) => s.text).join(" ");
    expect(text).toContain("[EMAIL_1]");
    expect(text).toContain("[PHONE_1]");
    expect(text).toContain("[CARD_1]");
    expect(text).toContain("[IBAN_1]");
    expect(text).toContain("[PERSON_1]");
    expect(text).toContain("yesterday evening");
    for (const format of ["json", "txt", "md", "srt", "vtt"]) {
      const body = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=${format}`, { key })).text();
      expect({ format, raw: rawIn(body) }).toEqual({ format, raw: [] });
      expect(body).toContain("CARD_1");
    }
    const txt = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=txt`, { key })).text();
    expect(txt.split("\n")[0]).toBe("Personal data redacted: person 1, email 1, phone 1, payment_card 1, iban 1; audio silenced.");
    const vtt = await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=vtt`, { key })).text();
    expect(vtt).toStartWith("WEBVTT\n\nNOTE Personal data redacted:");
  });

  test("its report, export bundle and a generated document hold no raw value", async () => {
    const report = await (await server.api(`/api/v1/meetings/${meetingId}/summary`, { key })).text();
    expect(report).toContain("[EMAIL_1]"); // the double's minutes quote the first segments
    expect(rawIn(report)).toEqual([]);
    for (const query of ["", "?format=md"]) {
      const bundle = await (await server.api(`/api/v1/meetings/${meetingId}/export${query}`, { key })).text();
      expect(bundle).toContain("[PHONE_1]");
      // The participants' list is the account's own metadata: the name is there as given, not as said.
      expect(rawIn(bundle, false)).toEqual([]);
    }
    const requested = await server.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key, json: { prompt: "A note for the file, quoting the report." } });
    expect(requested.status).toBe(202);
    const job = await endedJob(server, key, ((await requested.json()) as any).id);
    expect(job.status).toBe("completed");
    expect(job.document_id).toMatch(/^doc_\w+$/);
    const document = await (await server.api(`/api/v1/documents/${job.document_id}`, { key })).text();
    expect(document).toContain("Compte rendu");
    expect(rawIn(document, false)).toEqual([]);
  });

  test("search finds it by its words and placeholders, never by a raw value", async () => {
    const search = async (q: string) => ((await (await server.api(`/api/v1/meetings?q=${encodeURIComponent(q)}`, { key })).json()) as any).data.map((m: any) => m.id);
    expect(await search("yesterday")).toContain(meetingId);
    for (const raw of ["4111", "zephyr", "FR76", "12345678"]) expect({ raw, found: await search(raw) }).toEqual({ raw, found: [] });
  });

  test("no file of the data dir holds a raw value while the server runs (database, WAL, recording, step outputs)", async () => {
    // Some content must be there for the scan to mean anything: the redacted words are.
    const files = needlesInFiles(dataDir, ["yesterday evening"]);
    expect(files.length).toBeGreaterThan(0);
    expect(needlesInFiles(dataDir, NEEDLES)).toEqual([]);
    if (!onPostgres) {
      await checkpointIntoMainFile(dataDir);
      expect(needlesInFiles(dataDir, NEEDLES)).toEqual([]);
    } else {
      expect(await needlesInPostgresRows(databaseOf(server), NEEDLES)).toEqual([]);
    }
  });

  test("the stored recording is silent inside each redacted word and unchanged outside", async () => {
    const recording = join(dataDir, "meetings", meetingId, "recording");
    expect(new TextDecoder().decode(new Uint8Array(await Bun.file(recording).slice(0, 4).arrayBuffer()))).toBe("fLaC");
    const original = levelOf(tone, 0, 18).meanDb;
    for (const [start, end] of REDACTED_SPANS) expect({ start, maxDb: levelOf(recording, start, end).maxDb <= DIGITAL_SILENCE_DB }).toEqual({ start, maxDb: true });
    for (const [start, end] of KEPT_SPANS) expect(Math.abs(levelOf(recording, start, end).meanDb - original)).toBeLessThan(1);
  });
});

describe("asking for redaction", () => {
  test("an unknown entity kind is a 400 naming it", async () => {
    const response = await createMeeting({ redact_pii: JSON.stringify({ entities: ["email", "shoe_size", "blood_type"] }) });
    const problem = (await expectProblem(response, 400, "validation_error")) as any;
    const error = problem.errors.find((e: any) => e.field === "redact_pii.entities");
    expect(error.code).toBe("unknown_entity_kind");
    expect(error.message).toContain("shoe_size, blood_type");
    const junk = await server.api("/api/v1/meetings", { method: "POST", key, json: { audio_url: "https://example.com/a.mp3", redact_pii: "yes" } });
    expect(((await expectProblem(junk, 400, "validation_error")) as any).errors[0].field).toBe("redact_pii");
  });

  test("the account default (GET/PUT /v1/redaction) applies to a meeting that does not say, transcribe_only too; false turns it off", async () => {
    expect(await (await server.api("/api/v1/redaction", { key })).json()).toEqual({ object: "redaction_settings", enabled: false, entities: expect.any(Array), audio: false, case_number_pattern: null });
    const put = await server.api("/api/v1/redaction", { method: "PUT", key, json: { enabled: true, entities: ["email", "payment_card"], case_number_pattern: "CASE-\\d{4}" } });
    expect(put.status).toBe(200);
    const settings = { object: "redaction_settings", enabled: true, entities: ["email", "payment_card"], audio: false, case_number_pattern: "CASE-\\d{4}" };
    expect(await put.json()).toEqual(settings);
    expect(await (await server.api("/api/v1/redaction", { key })).json()).toEqual(settings);

    const byDefault = await processed({ transcribe_only: "true" });
    expect(byDefault.redaction).toEqual({ applied: true, requested: ["email", "payment_card"], entities: { email: 1, payment_card: 1 }, audio: false });
    const text = await (await server.api(`/api/v1/meetings/${byDefault.id}/transcript?format=txt`, { key })).text();
    expect(text).toContain("[EMAIL_1]");
    expect(text).toContain(RAW.phone); // not a kind the default asks for

    const off = await processed({ redact_pii: "false" });
    expect(off.redaction).toBeNull();
    expect(await (await server.api(`/api/v1/meetings/${off.id}/transcript?format=txt`, { key })).text()).toContain(RAW.email);
    await server.api("/api/v1/redaction", { method: "PUT", key, json: { enabled: false } });
  }, 120_000);

  test("PUT /v1/redaction refuses a pattern that is not a safe regular expression, and needs write:meetings", async () => {
    for (const pattern of ["(", "a*", "(a+)+$", "x".repeat(121), "(?<=a)b"]) {
      const response = await server.api("/api/v1/redaction", { method: "PUT", key, json: { enabled: false, case_number_pattern: pattern } });
      expect(((await expectProblem(response, 400, "validation_error")) as any).errors[0].field).toBe("case_number_pattern");
    }
    const reader = await createUserWithKey(server, "reader@example.com", "read:meetings");
    expect((await server.api("/api/v1/redaction", { key: reader })).status).toBe(200);
    await expectProblem(await server.api("/api/v1/redaction", { method: "PUT", key: reader, json: { enabled: true } }), 403, "insufficient_scope");
  });
});

describe("a redacted meeting whose processing fails", () => {
  test("leaves none of its unredacted words behind: the transcription and the unredacted transcript go with the failure", async () => {
    const failing = await startServer({
      args: ["--engines", "test/doubles/engines.ts"],
      env: { TEST_ENGINE_BEHAVIOR: "diarize:fail", TEST_ENGINE_TRANSCRIPT: join(work, "transcript.json"), VERBATIM_WORKER_ENV: "TEST_ENGINE_BEHAVIOR,VERBATIM_TEST_MARK,TEST_ENGINE_TRANSCRIPT" },
    });
    try {
      const owner = await createUserWithKey(failing, "failing@example.com");
      const form = new FormData();
      form.append("file", Bun.file(tone), "call.wav");
      form.append("redact_pii", "true");
      const created = (await (await failing.api("/api/v1/meetings", { method: "POST", key: owner, body: form })).json()) as any;
      expect((await endedJob(failing, owner, created.job.id)).status).toBe("failed");
      const files = (await Array.fromAsync(new Bun.Glob("**").scan({ cwd: join(failing.dataDir, "meetings", created.id) }))).sort();
      // The recording stays as received (a failed meeting's); the steps' text is gone.
      expect(files).toContain("recording");
      expect(files).not.toContain("transcribe.json");
      expect(needlesInFiles(failing.dataDir, NEEDLES)).toEqual([]);
    } finally {
      await failing.stop();
    }
  }, 120_000);
});

// The retention sweep across a month with an injected clock (issue 23, item 3): one account with a
// policy (whole meetings after 20 days, recordings after 7), meetings recorded on different days, a
// hold on one meeting and on one client folder, another account without a policy. The clock steps
// a day at a time; after each sweep the test checks, in every table (any column of any row) and
// in the storage folder, what is gone and what stays, and what the audit trail was told. On the
// SQLite run it also reads the database file and its WAL for the deleted meetings' words.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { eq } from "drizzle-orm";
import { addUser } from "../auth/user-store.ts";
import { clients } from "../clients/table.ts";
import { run, withTx } from "../db/conn.ts";
import { WalTruncator } from "../db/wal-truncation.ts";
import { storeRetentionPolicy } from "../retention/store.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { DECODED_AUDIO, meetingDir, RECORDING, stepOutputName } from "../storage/paths.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { needlesInFiles, needlesInRows } from "../../test/support/data-dir-scan.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { retentionPolicyBody } from "../retention/schema.ts";
import { deleteMeeting } from "./delete.ts";
import { sweepRetention, type RetentionCutEvent } from "./retention-sweep.ts";
import { createMeetingUpload } from "./schema.ts";
import { insertGivenTranscript, insertMeeting } from "./store.ts";
import { meetings, reports } from "./table.ts";

const DAY = 24 * 3600 * 1000;
/** Day 0 of the month the clock walks through (midnight UTC); each sweep runs at 01:00 of its day. */
const T0 = Date.UTC(2027, 2, 1);
const sweepTime = (day: number) => T0 + day * DAY + 3600 * 1000;

/**
 * The meetings, by the word that marks their content (title, participant, transcript, report,
 * files), with the day they were recorded (relative to day 0) and what the test expects: the day
 * the whole meeting goes and the day its recording goes (null: kept through the month).
 */
interface Case {
  marker: string;
  recordedDay: number;
  clientName?: string;
  hold?: boolean;
  text?: boolean;
  other?: boolean;
  meetingGoesOn: number | null;
  recordingGoesOn: number | null;
}

// Policy: whole meetings 20 days after recorded_at, recordings after 7 days.
const CASES: Case[] = [
  // Recorded 15 days before day 0: its recording is overdue (day 0), the meeting goes on day 5.
  { marker: "Alderglen", recordedDay: -15, meetingGoesOn: 5, recordingGoesOn: 0 },
  // Recorded on day -2 at midnight: recording due on day 5 at midnight, meeting on day 18.
  { marker: "Brightwater", recordedDay: -2, meetingGoesOn: 18, recordingGoesOn: 5 },
  // Recorded on day 3 (a meeting recorded during the month): recording on day 10, meeting on day 23.
  { marker: "Cobblestone", recordedDay: 3, clientName: "Open Firm", meetingGoesOn: 23, recordingGoesOn: 10 },
  // Its own hold: kept, recording included, until the hold is lifted on day 25; the sweep that day deletes it.
  { marker: "Dunmarrow", recordedDay: -19, hold: true, meetingGoesOn: 25, recordingGoesOn: 25 },
  // In a held client folder: kept all month, recording included.
  { marker: "Eskerfield", recordedDay: -12, clientName: "Held Firm", meetingGoesOn: null, recordingGoesOn: null },
  // A text meeting has no recording to delete; the meeting goes on day 11.
  { marker: "Fernhollow", recordedDay: -9, text: true, meetingGoesOn: 11, recordingGoesOn: null },
  // Another account, without a policy: never touched.
  { marker: "Glimmerdale", recordedDay: -40, other: true, meetingGoesOn: null, recordingGoesOn: null },
];
const LIFT_DAY = 25;

let store: TempDatabase;
let storageDir: string;
let cuts: (RetentionCutEvent & { day: number })[];
let canceled: string[];
const ids = new Map<string, string>();

beforeEach(async () => {
  store = tempDatabase("retention-sweep");
  storageDir = mkdtempSync(join(tmpdir(), "verbatim-retention-sweep-"));
  cuts = [];
  canceled = [];
  ids.clear();
});

afterEach(async () => {
  await store.remove();
  rmSync(storageDir, { recursive: true, force: true });
});

/** A completed meeting with participants, tags, a transcript, a report and files, each holding its marker. */
async function seed(userId: string, c: Case): Promise<string> {
  const storage = localDiskStorage(storageDir);
  const id = crypto.randomUUID();
  const recordedAt = T0 + c.recordedDay * DAY;
  const fields = createMeetingUpload.parse({
    title: `${c.marker} board meeting`,
    recorded_at: new Date(recordedAt).toISOString(),
    tags: [`tag${c.marker.toLowerCase()}`],
    participants: [{ name: `${c.marker} Person`, email: `${c.marker.toLowerCase()}@firm.example` }],
    ...(c.clientName ? { client: { name: c.clientName } } : {}),
  });
  const origin = { source: c.text ? ("text" as const) : ("upload" as const), fileName: null, audioUrl: null, fallbackTitle: "" };
  await withTx(store.conn, async (tx) => {
    await insertMeeting(tx, id, { userId }, fields, origin, "queued", recordedAt);
    const transcript = { language: "en", model: "test", durationSeconds: 5, speakers: ["SPEAKER_00"], segments: [{ start: 0, end: 5, speaker: "SPEAKER_00", text: `${c.marker} spoken words` }], turns: [] };
    await insertGivenTranscript(tx, id, transcript, [], recordedAt);
    await run(tx, async (q) => {
      await q.update(meetings).set({ status: "completed", legalHold: c.hold ?? false }).where(eq(meetings.id, id));
      await q.insert(reports).values({ meetingId: id, title: "Report", markdown: `${c.marker} report text`, createdAt: recordedAt, updatedAt: recordedAt });
    });
  });
  if (!c.text) {
    await storage.put(id, RECORDING, `${c.marker} recording bytes`, "seed");
    await storage.put(id, DECODED_AUDIO, `${c.marker} decoded audio`, "seed");
  }
  await storage.put(id, stepOutputName("transcribe"), `${c.marker} step output`, "seed");
  return id;
}

test("a month of daily sweeps: what is due goes through the deletion path, holds keep theirs, lifting a hold lets the next sweep delete", async () => {
  const storage = localDiskStorage(storageDir);
  const owner = await addUser(store.conn, { email: "owner@firm.example", plan: "pro" }, T0 - 60 * DAY);
  const other = await addUser(store.conn, { email: "other@firm.example", plan: "pro" }, T0 - 60 * DAY);
  await storeRetentionPolicy(store.conn, owner.id, { deleteAfterDays: 20, recordingDeleteAfterDays: 7 }, T0 - 30 * DAY);
  for (const c of CASES) ids.set(c.marker, await seed(c.other ? other.id : owner.id, c));
  await run(store.conn, (q) => q.update(clients).set({ legalHold: true }).where(eq(clients.name, "Held Firm")));

  const logs: string[] = [];
  const wal = new WalTruncator(store.conn, (line) => logs.push(line));
  let day = 0;
  const deps = {
    conn: store.conn,
    storage,
    wal,
    cancelJobs: (jobIds: string[]) => void canceled.push(...jobIds),
    recordCut: async (_tx: unknown, event: RetentionCutEvent) => void cuts.push({ ...event, day }),
  };

  const rowsOf = (c: Case) => needlesInRows(store.conn, { [c.marker]: c.marker });
  const exists = async (c: Case) => (await run(store.conn, (q) => q.select({ id: meetings.id }).from(meetings).where(eq(meetings.id, ids.get(c.marker)!)))).length === 1;
  const file = (c: Case, name: string) => existsSync(join(meetingDir(storageDir, ids.get(c.marker)!), name));

  for (day = 0; day <= 30; day++) {
    if (day === LIFT_DAY) {
      const held = ids.get("Dunmarrow")!;
      await run(store.conn, (q) => q.update(meetings).set({ legalHold: false }).where(eq(meetings.id, held)));
    }
    const swept = await sweepRetention(deps, sweepTime(day));
    const expectedMeetings = CASES.filter((c) => c.meetingGoesOn === day).length;
    // A meeting whose whole deletion is due the same day as its recording's is deleted whole, once.
    const expectedRecordings = CASES.filter((c) => c.recordingGoesOn === day && c.meetingGoesOn !== day).length;
    expect({ day, ...swept }).toEqual({ day, meetings: expectedMeetings, recordings: expectedRecordings });

    for (const c of CASES) {
      const gone = c.meetingGoesOn !== null && c.meetingGoesOn <= day;
      const recordingGone = gone || (c.recordingGoesOn !== null && c.recordingGoesOn <= day);
      const where = `${c.marker} on day ${day}`;
      expect({ where, exists: await exists(c) }).toEqual({ where, exists: !gone });
      if (gone) {
        // No row of any table, no file of the meeting's folder holds its words, nor its id anywhere.
        expect({ where, rows: await rowsOf(c) }).toEqual({ where, rows: [] });
        expect({ where, rows: await needlesInRows(store.conn, { id: ids.get(c.marker)! }) }).toEqual({ where, rows: [] });
        expect({ where, folder: existsSync(meetingDir(storageDir, ids.get(c.marker)!)) }).toEqual({ where, folder: false });
        continue;
      }
      // Kept: the transcript, report, participants and tags are all there, and the step output.
      const kinds = (await rowsOf(c)).map((f) => f.split(": ")[0]).filter((table) => ["transcripts", "reports", "participants", "meetings"].includes(table!));
      expect({ where, kinds: [...new Set(kinds)].sort() }).toEqual({ where, kinds: ["meetings", "participants", "reports", "transcripts"] });
      expect({ where, step: file(c, stepOutputName("transcribe")) }).toEqual({ where, step: true });
      if (c.text) continue;
      expect({ where, recording: file(c, RECORDING), audio: file(c, DECODED_AUDIO) }).toEqual({ where, recording: !recordingGone, audio: !recordingGone });
      const mark = (await run(store.conn, (q) => q.select({ at: meetings.recordingDeletedAt }).from(meetings).where(eq(meetings.id, ids.get(c.marker)!))))[0]!.at;
      expect({ where, marked: mark !== null }).toEqual({ where, marked: recordingGone });
    }
  }

  // The audit trail was told of each cut once, on the day it happened, as the system.
  const expectedCuts = CASES.flatMap((c) => [
    ...(c.recordingGoesOn !== null && c.recordingGoesOn !== c.meetingGoesOn ? [{ action: "retention.recording_deleted", meetingId: ids.get(c.marker)!, day: c.recordingGoesOn }] : []),
    ...(c.meetingGoesOn !== null ? [{ action: "retention.meeting_deleted", meetingId: ids.get(c.marker)!, day: c.meetingGoesOn }] : []),
  ]);
  const byDay = (a: { day: number; action: string; meetingId: string }, b: typeof a) => a.day - b.day || a.action.localeCompare(b.action) || a.meetingId.localeCompare(b.meetingId);
  expect(cuts.map(({ action, meetingId, day: on }) => ({ action: action as string, meetingId, day: on })).sort(byDay)).toEqual(expectedCuts.sort(byDay));
  expect(cuts.every((cut) => cut.userId === owner.id)).toBe(true);

  if (!onPostgres) {
    // The deletions truncated the WAL: the deleted meetings' words are in no byte of the database's files.
    for (let i = 0; i < 100 && wal.pending; i++) await Bun.sleep(50);
    const deleted = CASES.filter((c) => c.meetingGoesOn !== null).map((c) => `${c.marker} spoken words`);
    expect(needlesInFiles(dirname(store.path), deleted)).toEqual([]);
    // ...while a kept meeting's are (so the scan can fail).
    expect(needlesInFiles(dirname(store.path), ["Eskerfield spoken words"]).length).toBeGreaterThan(0);
  }
  wal.stop();
  expect(logs).toEqual([]);
});

test("a hold set after the sweep listed a meeting wins: the deletion re-decides under the account's lock", async () => {
  const storage = localDiskStorage(storageDir);
  const owner = await addUser(store.conn, { email: "owner@firm.example", plan: "pro" }, T0);
  await storeRetentionPolicy(store.conn, owner.id, { deleteAfterDays: 1, recordingDeleteAfterDays: null }, T0);
  const id = await seed(owner.id, { marker: "Hollowmere", recordedDay: -5, meetingGoesOn: null, recordingGoesOn: null });
  const deps = { conn: store.conn, storage, wal: { afterDeletion() {} }, cancelJobs() {} };
  let decided = 0;
  // The hold arrives between the listing and the deleting transaction: that transaction refuses.
  await run(store.conn, (q) => q.update(meetings).set({ legalHold: true }).where(eq(meetings.id, id)));
  await expect(
    deleteMeeting(deps, owner.id, id, async () => {
      decided++;
      return true;
    }),
  ).rejects.toMatchObject({ code: "legal_hold", status: 409 });
  expect(decided).toBe(0);
  expect(existsSync(join(meetingDir(storageDir, id), RECORDING))).toBe(true);
  // Nothing is due while it holds; lifted, the next sweep deletes it.
  expect(await sweepRetention({ ...deps, recordCut: async () => {} }, sweepTime(0))).toEqual({ meetings: 0, recordings: 0 });
  await run(store.conn, (q) => q.update(meetings).set({ legalHold: false }).where(eq(meetings.id, id)));
  expect(await sweepRetention({ ...deps, recordCut: async () => {} }, sweepTime(0))).toEqual({ meetings: 1, recordings: 0 });
  expect(existsSync(meetingDir(storageDir, id))).toBe(false);
});

test("a cut the audit trail cannot record is not made: the transaction rolls back, the files stay", async () => {
  const storage = localDiskStorage(storageDir);
  const owner = await addUser(store.conn, { email: "owner@firm.example", plan: "pro" }, T0);
  await storeRetentionPolicy(store.conn, owner.id, { deleteAfterDays: 30, recordingDeleteAfterDays: 2 }, T0);
  const whole = await seed(owner.id, { marker: "Ironbridge", recordedDay: -40, meetingGoesOn: null, recordingGoesOn: null });
  const recording = await seed(owner.id, { marker: "Juniperhill", recordedDay: -5, meetingGoesOn: null, recordingGoesOn: null });
  const logs: string[] = [];
  const failing = { conn: store.conn, storage, wal: { afterDeletion() {} }, cancelJobs() {}, recordCut: async () => Promise.reject(new Error("audit store unavailable")) };
  expect(await sweepRetention(failing, sweepTime(0), (line) => logs.push(line))).toEqual({ meetings: 0, recordings: 0 });
  // Ironbridge twice (whole, then its recording), Juniperhill once.
  expect(logs).toHaveLength(3);
  expect(existsSync(join(meetingDir(storageDir, whole), RECORDING))).toBe(true);
  expect(existsSync(join(meetingDir(storageDir, recording), RECORDING))).toBe(true);
  expect((await needlesInRows(store.conn, { whole: "Ironbridge spoken words" })).length).toBeGreaterThan(0);
});

test("the policy's bounds: 1..36500 days or null, the recording's period below the meeting's", () => {
  const ok = (body: unknown) => retentionPolicyBody.safeParse(body).success;
  expect(ok({ delete_after_days: 30, recording_delete_after_days: 7 })).toBe(true);
  expect(ok({ delete_after_days: null, recording_delete_after_days: null })).toBe(true);
  expect(ok({ delete_after_days: 36500, recording_delete_after_days: 1 })).toBe(true);
  expect(ok({ delete_after_days: 0, recording_delete_after_days: null })).toBe(false);
  expect(ok({ delete_after_days: 36501, recording_delete_after_days: null })).toBe(false);
  expect(ok({ delete_after_days: 1.5, recording_delete_after_days: null })).toBe(false);
  expect(ok({ delete_after_days: 7, recording_delete_after_days: 7 })).toBe(false);
  expect(ok({ delete_after_days: 30 })).toBe(false);
});

import { and, eq, inArray } from "drizzle-orm";
import { findOrCreateClient, requireClient } from "../clients/service.ts";
import type { Queryable } from "../db/client.ts";
import { runTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError, type FieldError } from "../errors/api-error.ts";
import { parseNumericId } from "../lib/ids.ts";
import { ownedMeetingRow, participantsOf, transcriptSpeakers } from "./store.ts";
import type { PatchMeeting } from "./schema.ts";
import { reindexMeeting } from "./search-index-store.ts";
import { meetings, meetingTags, participants } from "./table.ts";

/**
 * Applies a PATCH: only the fields sent change, and the AI report is never regenerated.
 * Participants are removed, then updated, then added. A speaker label belongs to at most one
 * participant: giving it to one takes it from any other. Labels must exist in the transcript.
 *
 * In a transaction of its own (or a savepoint of the caller's).
 */
export function storeMeetingPatch(c: Conn, userId: string, meetingId: string, patch: PatchMeeting, now: number): Promise<void> {
  return runTx(c, (tx) => patchMeetingRows(tx, userId, meetingId, patch, now));
}

/** The PATCH's writes, inside the caller's transaction: 404 when the meeting is not the user's. */
async function patchMeetingRows(tx: Queryable, userId: string, meetingId: string, patch: PatchMeeting, now: number): Promise<void> {
  // Participants and labels are read, decided and written: one change of the account's meetings at a time.
  await lockAccount(tx, userId);
  const meeting = await ownedMeetingRow(tx, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  // Nothing sent ({}): nothing changes, not even updated_at.
  if (Object.values(patch).every((value) => value === undefined)) return;
  const changes: Partial<typeof meetings.$inferInsert> = { updatedAt: now };
  if (patch.title !== undefined) Object.assign(changes, { title: patch.title, titleSource: "user" as const });
  if (patch.recorded_at !== undefined) changes.recordedAt = Date.parse(patch.recorded_at);
  // Under the account's lock, taken above: the deleting transactions take it too and then read the hold.
  if (patch.legal_hold !== undefined) changes.legalHold = patch.legal_hold;
  if (patch.client_id === null || patch.client === null) changes.clientId = null;
  else if (patch.client_id !== undefined) {
    changes.clientId = (await requireClient(tx, userId, patch.client_id)).id;
  } else if (patch.client !== undefined) {
    changes.clientId = (await findOrCreateClient(tx, userId, patch.client, now)).id;
  }
  await tx.update(meetings).set(changes).where(eq(meetings.id, meeting.id));

  if (patch.tags !== undefined) {
    await tx.delete(meetingTags).where(eq(meetingTags.meetingId, meeting.id));
    for (const tag of new Set(patch.tags)) await tx.insert(meetingTags).values({ meetingId: meeting.id, tag });
  }
  if (patch.participants) await applyParticipants(tx, meeting.id, patch.participants);
  await reindexMeeting(tx, meeting.id);
}

async function applyParticipants(tx: Queryable, meetingId: string, change: NonNullable<PatchMeeting["participants"]>): Promise<void> {
  const existing = new Map((await participantsOf(tx, meetingId)).map((p) => [p.id, p]));
  const errors: FieldError[] = [];
  const idOf = (text: string) => parseNumericId("par", text)!;
  change.remove.forEach((id, i) => {
    if (!existing.has(idOf(id))) errors.push({ field: `participants.remove[${i}]`, code: "not_found", message: `${id} is not a participant of this meeting.` });
  });
  change.update.forEach((u, i) => {
    if (!existing.has(idOf(u.id)) || change.remove.includes(u.id)) {
      errors.push({ field: `participants.update[${i}].id`, code: "not_found", message: `${u.id} is not a participant of this meeting.` });
    }
  });

  // Labels assigned by this request: each must exist in the transcript and go to one participant only.
  const speakers = await transcriptSpeakers(tx, meetingId);
  const assigned = new Map<string, string>();
  const checkLabels = (labels: string[] | undefined, field: string) => {
    (labels ?? []).forEach((label, j) => {
      const at = `${field}[${j}]`;
      if (speakers === null) errors.push({ field: at, code: "transcript_not_ready", message: "Speaker labels can be attributed once the transcript exists." });
      else if (!speakers.has(label)) errors.push({ field: at, code: "unknown_label", message: `${label} is not a speaker of this transcript.` });
      else if (assigned.has(label)) errors.push({ field: at, code: "duplicate_label", message: `${label} is also given to ${assigned.get(label)} in this request.` });
      else assigned.set(label, field);
    });
  };
  change.update.forEach((u, i) => checkLabels(u.speaker_labels, `participants.update[${i}].speaker_labels`));
  change.add.forEach((a, i) => checkLabels(a.speaker_labels, `participants.add[${i}].speaker_labels`));
  if (errors.length) throw ApiError.validation(errors);

  const removed = change.remove.map(idOf);
  if (removed.length) await tx.delete(participants).where(and(eq(participants.meetingId, meetingId), inArray(participants.id, removed)));
  // Moving a label: take every label assigned here away from whoever holds it now.
  if (assigned.size) {
    for (const p of await participantsOf(tx, meetingId)) {
      const labels = p.speakerLabels;
      const kept = labels.filter((l) => !assigned.has(l));
      if (kept.length !== labels.length) await tx.update(participants).set({ speakerLabels: kept }).where(eq(participants.id, p.id));
    }
  }
  for (const u of change.update) {
    const set: Partial<typeof participants.$inferInsert> = {};
    if (u.name !== undefined) set.name = u.name;
    if (u.email !== undefined) set.email = u.email;
    if (u.speaker_labels !== undefined) set.speakerLabels = u.speaker_labels;
    if (Object.keys(set).length) await tx.update(participants).set(set).where(eq(participants.id, idOf(u.id)));
  }
  const total = (await participantsOf(tx, meetingId)).length + change.add.length;
  if (total > 50) throw ApiError.validation([{ field: "participants.add", code: "too_long", message: "A meeting has at most 50 participants." }]);
  for (const a of change.add) {
    await tx.insert(participants).values({ meetingId, name: a.name, email: a.email ?? null, speakerLabels: a.speaker_labels });
  }
}

/** Participants plus the transcript's speakers no participant holds (id null). */

import type { Conn } from "../db/conn.ts";
import { draftsWithoutParts, idleDraftsBefore, insertDraftParts, type DraftPartRow } from "./draft-store.ts";
import { DRAFT_PARTS } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import { deleteMeeting } from "./delete.ts";
import type { DraftLimits } from "./draft-limits.ts";
import { sha256Hex } from "./drafts.ts";

/**
 * Drafts need looking after outside requests: the parts of drafts a server stored before the
 * draft_parts table existed are recorded in it once, and drafts nobody continues are deleted.
 */

/** A part's name in the storage (storage/paths.ts's draftPartName), its index captured. */
const PART_NAME = new RegExp(`^${DRAFT_PARTS}/(\\d{6})$`);

/**
 * At start: a draft whose parts folder holds files but which has no part rows was begun before
 * the upgrade that added draft_parts (or its last part was renamed into place by a transaction
 * that never committed). Its parts are recorded from the folder, so it can be continued and
 * finished like any other. Later starts find nothing to do: every draft with files has rows.
 */
export async function recordUntrackedDraftParts(c: Conn, storage: Storage, now: number): Promise<number> {
  let recorded = 0;
  for (const id of await draftsWithoutParts(c)) {
    const rows: DraftPartRow[] = [];
    for (const name of await storage.list(id, DRAFT_PARTS)) {
      const index = PART_NAME.exec(name)?.[1];
      const content = index === undefined ? null : await storage.get(id, name);
      if (!content) continue; // not a part, or removed meanwhile
      const sha256 = await sha256Hex(content);
      rows.push({ meetingId: id, partIndex: Number(index), bytes: content.length, sha256, receivedAt: now });
    }
    if (rows.length === 0) continue;
    await insertDraftParts(c, rows);
    recorded += rows.length;
  }
  return recorded;
}

/**
 * Deletes the drafts left untouched for `limits.idleMs`, each as a meeting is deleted (rows,
 * parts, folder); answers how many. Their pages said when, from draftDeletionTime.
 */
export async function sweepIdleDrafts(deps: Parameters<typeof deleteMeeting>[0], limits: Pick<DraftLimits, "idleMs">, now: number): Promise<number> {
  let deleted = 0;
  for (const draft of await idleDraftsBefore(deps.conn, now - limits.idleMs)) {
    try {
      await deleteMeeting(deps, draft.userId, draft.id);
      deleted++;
    } catch {
      // Deleted by its owner meanwhile.
    }
  }
  return deleted;
}

/** When the idle sweep deletes a draft last touched at `updatedAt`, unless it is continued before. */
export function draftDeletionTime(updatedAt: number, limits: Pick<DraftLimits, "idleMs">): number {
  return updatedAt + limits.idleMs;
}

import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { PatchMeeting } from "./schema.ts";
import { tagsOf } from "./list-extras-store.ts";
import { assertOwnClient } from "./store.ts";

/** The most meetings one bulk action takes (the web list shows at most 100 a page). */
export const MAX_BULK_MEETINGS = 100;
/** A meeting holds at most this many tags (PATCH's bound). */
const MAX_TAGS = 20;

/** What a bulk action did: the meetings changed, those a legal hold kept, and how many ids were none of the actor's. */
export interface BulkOutcome {
  changed: string[];
  held: string[];
  skipped: number;
}

/** The single-meeting use cases a bulk action repeats (meetings/app.ts). */
interface SingleMeeting {
  /** One of the actor's meetings; 404 for any other id. */
  row(actor: Actor, meetingId: string): Promise<unknown>;
  patch(actor: Actor, meetingId: string, change: PatchMeeting): Promise<unknown>;
  delete(actor: Actor, meetingId: string): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The web list's actions on several meetings at once (issue 25 item 6): each meeting goes through
 * the single-meeting use case (its ownership check, its legal hold, its audit entry), one after the
 * other. An id that is not one of the actor's meetings changes nothing and is only counted; a
 * meeting under a legal hold is reported, not deleted. More than MAX_BULK_MEETINGS ids is a 400.
 */
export function bulkMeetingsApp(deps: { conn: Conn }, single: SingleMeeting) {
  const each = async (ids: readonly string[], act: (id: string) => Promise<void>): Promise<BulkOutcome> => {
    const unique = [...new Set(ids.map((id) => id.trim().toLowerCase()))];
    if (unique.length > MAX_BULK_MEETINGS) {
      throw ApiError.validation([{ field: "ids", code: "too_many", message: `Choose at most ${MAX_BULK_MEETINGS} meetings at once.` }]);
    }
    const outcome: BulkOutcome = { changed: [], held: [], skipped: 0 };
    for (const id of unique) {
      if (!UUID.test(id)) {
        outcome.skipped++;
        continue;
      }
      try {
        await act(id);
        outcome.changed.push(id);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === "legal_hold") outcome.held.push(id);
        else if (error.status === 404) outcome.skipped++;
        else throw error;
      }
    }
    return outcome;
  };

  return {
    /** Adds `tag` to each meeting (one already holding it, or holding as many tags as it may, is left as it is). */
    bulkTag(actor: Actor, ids: readonly string[], tag: string): Promise<BulkOutcome> {
      return each(ids, async (id) => {
        // Ownership first (the patch checks it again): another account's tags are never read.
        await single.row(actor, id);
        const tags = await tagsOf(deps.conn, id);
        if (tags.includes(tag) || tags.length >= MAX_TAGS) return;
        await single.patch(actor, id, { tags: [...tags, tag] });
      });
    },

    /** Moves each meeting into the actor's client folder `clientId` (cli_<n>; 400 unknown_client when it is not theirs), or out of any (null). */
    async bulkMove(actor: Actor, ids: readonly string[], clientId: string | null): Promise<BulkOutcome> {
      if (clientId !== null) await assertOwnClient(deps.conn, actor.account.userId, clientId);
      return each(ids, (id) => single.patch(actor, id, { client_id: clientId }).then(() => undefined));
    },

    /** Deletes each meeting by the single deletion path; those under a legal hold are kept and reported. */
    bulkDelete(actor: Actor, ids: readonly string[]): Promise<BulkOutcome> {
      return each(ids, (id) => single.delete(actor, id));
    },
  };
}

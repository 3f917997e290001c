import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { getUserByEmail, userIsActive } from "../auth/user-store.ts";
import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { findOwnedMeeting } from "../meetings/store.ts";
import { meetingsSharedWith, removeShare, shareGrant, sharesOfMeeting, storeShare, type SharedMeetingRow, type ShareRow } from "./store.ts";
import { SHARE_PERMISSIONS, type SharePermission } from "./table.ts";

export { SHARE_PERMISSIONS, type SharePermission } from "./table.ts";
export type { SharedMeetingRow, ShareRow } from "./store.ts";

/** What the actor may do with a meeting: everything (its owner), read it, read and correct it, or nothing (404). */
export type MeetingAccess = "owner" | "view" | "correct" | "none";

/**
 * Why a share was refused, in the owner's words: `unknown` is said alike for an email nobody
 * holds and for a disabled account (docs/decisions.md), `self` for the owner's own address.
 */
export class ShareRefused extends Error {
  constructor(readonly reason: "unknown" | "self") {
    super(reason === "self" ? "A meeting is already its owner's." : "No active account of this installation has this email.");
    this.name = "ShareRefused";
  }
}

export interface SharingAppDeps {
  conn: Conn;
  clock: Clock;
  audit?: AuditTrail;
}

/** The actor and what it may do with one meeting; `actor` is the one the meetings' use cases take for it. */
export interface MeetingAccessGrant {
  access: Exclude<MeetingAccess, "none">;
  /**
   * The owner's own actor, or for a colleague the owner's account acted in by the colleague
   * (`actingUserId`: the audit trail names who read or corrected). Only the web app's meeting
   * pages use it, for what `access` allows; the API and MCP never see a shared meeting.
   */
  actor: Actor;
  /** For a colleague: the owner's email, which the page names. */
  sharedBy?: string;
}

/**
 * Sharing a meeting with colleagues of the same installation (issue 25 item 7): the owner shares,
 * lists and revokes; a colleague lists what is shared with them; `grantFor` says what an actor may
 * do with a meeting. The web app alone offers it: the API's meetings stay the owner's (SPEC).
 */
export function sharingApp(deps: SharingAppDeps) {
  const { conn } = deps;
  const audit = deps.audit ?? NO_AUDIT_TRAIL;

  /** The actor's own meeting, else 404 (another's, shared or not, or none). */
  const owned = async (actor: Actor, meetingId: string) => {
    const row = await findOwnedMeeting(conn, actor.account.userId, meetingId);
    if (!row) throw ApiError.notFound(`Meeting ${meetingId}`);
    return row;
  };

  const grantFor = async (actor: Actor, meetingId: string): Promise<MeetingAccessGrant | null> => {
    if (await findOwnedMeeting(conn, actor.account.userId, meetingId)) return { access: "owner", actor };
    const grant = await shareGrant(conn, actor.account.userId, meetingId.toLowerCase());
    if (!grant) return null;
    return {
      access: grant.permission === "view_and_correct" ? "correct" : "view",
      actor: { ...actor, account: { userId: grant.ownerUserId, plan: grant.ownerPlan }, actingUserId: actor.actingUserId ?? actor.account.userId },
      sharedBy: grant.ownerEmail,
    };
  };

  return {
    /** Shares one of the actor's meetings with the active user holding `email` (or changes the permission of an existing share). */
    async share(actor: Actor, meetingId: string, email: string, permission: SharePermission): Promise<string> {
      if (!SHARE_PERMISSIONS.includes(permission)) throw ApiError.validation([{ field: "permission", code: "invalid", message: "must be view or view_and_correct" }]);
      const meeting = await owned(actor, meetingId);
      const recipient = await getUserByEmail(conn, email);
      if (!recipient || !(await userIsActive(conn, recipient.id))) throw new ShareRefused("unknown");
      if (recipient.id === actor.account.userId) throw new ShareRefused("self");
      const shareId = await storeShare(conn, { id: randomId("shr"), meetingId: meeting.id, ownerUserId: actor.account.userId, recipientUserId: recipient.id, permission, now: deps.clock.now() });
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.meetingShared, { type: "meeting", id: meeting.id }, { share: shareId, recipient: recipient.id, permission }));
      return shareId;
    },

    /** Everyone one of the actor's meetings is shared with. */
    async shares(actor: Actor, meetingId: string): Promise<ShareRow[]> {
      return sharesOfMeeting(conn, (await owned(actor, meetingId)).id);
    },

    /** Ends one share of the actor's meeting (404 when there is no such share). */
    async revoke(actor: Actor, meetingId: string, shareId: string): Promise<void> {
      const meeting = await owned(actor, meetingId);
      const recipient = await removeShare(conn, actor.account.userId, meeting.id, shareId);
      if (recipient === null) throw ApiError.notFound(`Share ${shareId}`);
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.meetingShareRevoked, { type: "meeting", id: meeting.id }, { share: shareId, recipient }));
    },

    /** The meetings colleagues shared with the actor, most recently shared first. */
    sharedWithMe(actor: Actor): Promise<SharedMeetingRow[]> {
      return meetingsSharedWith(conn, actor.account.userId);
    },

    /** What the actor may do with a meeting: owner, view, correct, or none. */
    async accessFor(actor: Actor, meetingId: string): Promise<MeetingAccess> {
      return (await grantFor(actor, meetingId))?.access ?? "none";
    },

    /** What the actor may do with a meeting and the actor to hand the meetings' use cases; null: none (404). */
    grantFor,
  };
}

export type SharingApp = ReturnType<typeof sharingApp>;

import type { Channel } from "../lib/channel.ts";

/** How the one who acted proved who they were. */
export const AUDIT_CREDENTIAL_TYPES = ["api_key", "oauth", "web_session", "admin_cli", "system"] as const;
export type AuditCredentialType = (typeof AUDIT_CREDENTIAL_TYPES)[number];

/** Which front end the action came through. */
export const AUDIT_CHANNELS = ["api", "webapp", "mcp", "cli", "system"] as const;
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];

/** A detail's value: small scalars only, so an entry can never carry a transcript, a title or a file. */
export type AuditDetail = Record<string, string | number | boolean | null>;

/**
 * One thing that happened to an account's data: who, through what, from where, to which resource.
 * Never content: no text of a transcript or report, no title, no file name, no secret.
 */
export interface AuditEntry {
  /** Whose data or account it is about. */
  accountId: string;
  /** Who acted (null: the system, e.g. the retention sweep, or a shell user of `verbatim admin`). */
  actorUserId: string | null;
  credentialType: AuditCredentialType;
  /** The API key's id, the token's jti or grant, the web session's id hash: never a secret. */
  credentialId: string | null;
  channel: AuditChannel;
  /** Dotted, one of AUDIT_ACTIONS (actions.ts): "transcript.read", "meeting.deleted", "auth.sign_in_failed". */
  action: string;
  /** "meeting", "document", "api_key", "user", ... */
  resourceType: string | null;
  resourceId: string | null;
  /** The client's address, through the trusted proxy (--trusted-proxy). */
  clientAddress: string | null;
  detail?: AuditDetail;
}

/** Where use cases record what happened: never awaits the database on the request path (trail.ts). */
export interface AuditTrail {
  /**
   * Queues the entry; answers nothing, or (the queue full: the database is slow or failing) the
   * write to await, so the caller waits rather than the entry being lost. Use cases await it.
   */
  record(entry: AuditEntry): void | Promise<void>;
  /** Writes what is queued; resolves once it is in the database. */
  flush(): Promise<void>;
}

/**
 * What an entry reads of the Actor (auth/actor.ts, which extends this): audit/ sits below auth/,
 * whose use cases record sign-ins, so it names the shape rather than importing it.
 */
export interface AuditedActor {
  account: { userId: string };
  channel: Channel | "mcp";
  /**
   * The front end the entry names when it is not the metering channel: the MCP server acts on the
   * API's channel (the API wallet, GET /v1/jobs lists its jobs) and its entries say "mcp".
   */
  auditChannel?: AuditChannel;
  credential: { type: "api_key" | "oauth" | "web_session"; id: string };
  /** The request's client address (through the trusted proxy), looked up when an entry is made. */
  clientAddress?: () => string | null;
  /**
   * A colleague acting on a meeting shared with them (sharing/, issue 25): `account` is the
   * meeting owner's, whose data it is; this is who acted.
   */
  actingUserId?: string;
}

/** An entry of what `actor` did to a resource of its own account (or of a meeting shared with it: `actingUserId`). */
export function actorEntry(actor: AuditedActor, action: string, resource: { type: string; id: string } | null, detail?: AuditDetail): AuditEntry {
  return {
    accountId: actor.account.userId,
    actorUserId: actor.actingUserId ?? actor.account.userId,
    credentialType: actor.credential.type,
    credentialId: actor.credential.id,
    channel: actor.auditChannel ?? actor.channel,
    action,
    resourceType: resource?.type ?? null,
    resourceId: resource?.id ?? null,
    clientAddress: actor.clientAddress?.() ?? null,
    ...(detail ? { detail } : {}),
  };
}

/** An entry of what the service itself did to an account's data (the retention sweep): no actor, no credential, no address. */
export function systemEntry(accountId: string, action: string, resource: { type: string; id: string } | null, detail?: AuditDetail): AuditEntry {
  return {
    accountId,
    actorUserId: null,
    credentialType: "system",
    credentialId: null,
    channel: "system",
    action,
    resourceType: resource?.type ?? null,
    resourceId: resource?.id ?? null,
    clientAddress: null,
    ...(detail ? { detail } : {}),
  };
}

/**
 * An entry of what an administrator did with `verbatim admin ...` at a shell: the shell user has
 * no account of the service, so no actor id; `operator` (the OS user name, when known) is the credential id.
 */
export function adminCliEntry(accountId: string, action: string, resource: { type: string; id: string } | null, operator: string | null, detail?: AuditDetail): AuditEntry {
  return { ...systemEntry(accountId, action, resource, detail), credentialType: "admin_cli", credentialId: operator, channel: "cli" };
}

/**
 * The account of a failed sign-in that named no account (an unknown address, a person the identity
 * provider vouched for whom no account maps to): the entry is the administrator's (the export, the
 * console), no owner's Activity shows it.
 */
export const NO_ACCOUNT = "unknown";

/** A trail that keeps nothing: for use cases built without one (unit tests of other domains). */
export const NO_AUDIT_TRAIL: AuditTrail = { record() {}, flush: async () => {} };

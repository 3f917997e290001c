// Until the audit trail's core (src/audit/, tag audit-core) is merged: its contract, as agreed.
import type { Actor } from "../auth/actor.ts";
export type AuditCredentialType = "api_key" | "oauth" | "web_session" | "admin_cli" | "system";
export type AuditChannel = "api" | "webapp" | "mcp" | "cli" | "system";
export interface AuditEntry {
  accountId: string;
  actorUserId: string | null;
  credentialType: AuditCredentialType;
  credentialId: string | null;
  channel: AuditChannel;
  action: string;
  resourceType: string | null;
  resourceId: string | null;
  clientAddress: string | null;
  detail?: Record<string, string | number | boolean | null>;
}
export interface AuditTrail {
  record(entry: AuditEntry): void;
  flush(): Promise<void>;
}
export function actorEntry(actor: Actor, action: string, resource: { type: string; id: string } | null, detail?: AuditEntry["detail"]): AuditEntry {
  return {
    accountId: actor.account.userId,
    actorUserId: actor.account.userId,
    credentialType: actor.credential.type,
    credentialId: actor.credential.id,
    channel: actor.channel,
    action,
    resourceType: resource?.type ?? null,
    resourceId: resource?.id ?? null,
    clientAddress: null,
    detail,
  };
}

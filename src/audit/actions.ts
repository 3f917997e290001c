/**
 * Every action the audit trail records (docs/api-notes.md lists them with what each means). Dotted:
 * the resource, then what happened to it. Reads of content end in `.read` or `.downloaded`.
 */
export const AUDIT_ACTIONS = {
  // Reads of a meeting's content.
  transcriptRead: "transcript.read",
  reportRead: "report.read",
  recordingRead: "recording.read",
  exportRead: "export.read",
  documentDownloaded: "document.downloaded",
  // Changes to a meeting.
  meetingCreated: "meeting.created",
  meetingUpdated: "meeting.updated",
  meetingDeleted: "meeting.deleted",
  transcriptCorrected: "transcript.corrected",
  speakersRenamed: "meeting.speakers_renamed",
  reportRegenerated: "report.regenerated",
  meetingShared: "meeting.shared",
  meetingShareRevoked: "meeting.share_revoked",
  redactionSettingsChanged: "redaction.settings_changed",
  documentGenerated: "document.requested",
  documentDeleted: "document.deleted",
  // Sign-in.
  signIn: "auth.sign_in",
  signInFailed: "auth.sign_in_failed",
  signOut: "auth.sign_out",
  passwordChanged: "auth.password_changed",
  // Credentials.
  apiKeyCreated: "api_key.created",
  apiKeyRevoked: "api_key.revoked",
  tokenMinted: "oauth_token.minted",
  tokenRevoked: "oauth_token.revoked",
  // The OAuth authorization server (issue 24): consent given, and its end (owner, client, or reuse detected).
  oauthGrantCreated: "oauth_grant.created",
  oauthGrantRevoked: "oauth_grant.revoked",
  // Webhooks.
  webhookCreated: "webhook.created",
  webhookDeleted: "webhook.deleted",
  // What the service did by itself (the retention sweep, issue 23 item 3).
  retentionMeetingDeleted: "retention.meeting_deleted",
  retentionRecordingDeleted: "retention.recording_deleted",
  // The audit trail read for a SIEM.
  auditExported: "audit.exported",
  // An administrator's changes to an account (the console, `verbatim admin`; admin/app.ts).
  userCreated: "user.created",
  userDisabled: "user.disabled",
  userEnabled: "user.enabled",
  userDeleted: "user.deleted",
  signInReset: "user.sign_in_reset",
  roleChanged: "user.role_changed",
  planChanged: "user.plan_changed",
  creditsGranted: "user.credits_granted",
  spendCapSet: "user.spend_cap_set",
} as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[keyof typeof AUDIT_ACTIONS];

/** Every action name, for the Activity page's filter and the API's. */
export const AUDIT_ACTION_NAMES: readonly string[] = Object.values(AUDIT_ACTIONS);

/** The kinds the Activity page filters by: an action's first word ("transcript", "auth", ...). */
export const AUDIT_ACTION_KINDS: readonly string[] = [...new Set(AUDIT_ACTION_NAMES.map((name) => name.split(".")[0]!))];

import type { AuditAction, AuditRow } from "../../audit/app.ts";
import type { MessageKey } from "../messages/en.ts";
import { Layout, NextPageLink, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import { SettingsNav } from "./settings.tsx";

/** The Activity filters as the form shows them (what the browser sent, checked). */
export interface ActivityFilters {
  kind: string;
  from: string;
  to: string;
  resource: string;
}

/** Each action's words; an action without (a newer one) shows its name. */
/** Every action has its words: the type makes a new action name without them a compile error. */
const ACTION_LABELS: Record<AuditAction, MessageKey> = {
  "transcript.read": "activity.action.transcriptRead",
  "report.read": "activity.action.reportRead",
  "recording.read": "activity.action.recordingRead",
  "export.read": "activity.action.exportRead",
  "document.downloaded": "activity.action.documentDownloaded",
  "meeting.created": "activity.action.meetingCreated",
  "meeting.updated": "activity.action.meetingUpdated",
  "meeting.deleted": "activity.action.meetingDeleted",
  "transcript.corrected": "activity.action.transcriptCorrected",
  "meeting.speakers_renamed": "activity.action.speakersRenamed",
  "report.regenerated": "activity.action.reportRegenerated",
  "meeting.shared": "activity.action.meetingShared",
  "meeting.share_revoked": "activity.action.meetingShareRevoked",
  "redaction.settings_changed": "activity.action.redactionSettingsChanged",
  "document.requested": "activity.action.documentRequested",
  "document.deleted": "activity.action.documentDeleted",
  "auth.sign_in": "activity.action.signIn",
  "auth.sign_in_failed": "activity.action.signInFailed",
  "auth.sign_out": "activity.action.signOut",
  "auth.password_changed": "activity.action.passwordChanged",
  "api_key.created": "activity.action.apiKeyCreated",
  "api_key.revoked": "activity.action.apiKeyRevoked",
  "oauth_token.minted": "activity.action.tokenMinted",
  "oauth_token.revoked": "activity.action.tokenRevoked",
  "oauth_grant.created": "activity.action.oauthGrantCreated",
  "oauth_grant.revoked": "activity.action.oauthGrantRevoked",
  "webhook.created": "activity.action.webhookCreated",
  "webhook.deleted": "activity.action.webhookDeleted",
  "retention.meeting_deleted": "activity.action.retentionMeetingDeleted",
  "retention.recording_deleted": "activity.action.retentionRecordingDeleted",
  "audit.exported": "activity.action.auditExported",
  "user.created": "activity.action.userCreated",
  "user.disabled": "activity.action.userDisabled",
  "user.enabled": "activity.action.userEnabled",
  "user.deleted": "activity.action.userDeleted",
  "user.sign_in_reset": "activity.action.signInReset",
  "user.role_changed": "activity.action.roleChanged",
  "user.plan_changed": "activity.action.planChanged",
  "user.credits_granted": "activity.action.creditsGranted",
  "user.spend_cap_set": "activity.action.spendCapSet",
};

/** The filter's kinds (an action's first word) and their words. */
const KIND_LABELS: Record<string, MessageKey> = {
  transcript: "activity.kind.transcript",
  report: "activity.kind.report",
  recording: "activity.kind.recording",
  export: "activity.kind.export",
  document: "activity.kind.document",
  meeting: "activity.kind.meeting",
  redaction: "activity.kind.redaction",
  auth: "activity.kind.auth",
  api_key: "activity.kind.apiKey",
  oauth_token: "activity.kind.oauthToken",
  oauth_grant: "activity.kind.oauthGrant",
  webhook: "activity.kind.webhook",
  retention: "activity.kind.retention",
  audit: "activity.kind.audit",
  user: "activity.kind.user",
};

const CREDENTIAL_LABELS: Record<string, MessageKey> = {
  api_key: "activity.credential.apiKey",
  oauth: "activity.credential.oauth",
  web_session: "activity.credential.webSession",
  admin_cli: "activity.credential.adminCli",
  system: "activity.credential.system",
};

/** The kinds the filter offers, in this order. */
export const ACTIVITY_KINDS = Object.keys(KIND_LABELS);

/** Settings, Activity: the account's audit trail, newest first, filtered, a page at a time. */
export function ActivityPage(props: { frame: PageFrame; entries: AuditRow[]; filters: ActivityFilters; nextHref: string | null; notice?: PageNotice }) {
  const { frame, filters } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "short", timeStyle: "medium", timeZone: "UTC" });
  const label = (labels: Record<string, MessageKey>, name: string) => (labels[name] ? t(labels[name]!) : name);
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="activity" />
      <Notice notice={props.notice} />
      <section aria-labelledby="activity-title">
        <h2 id="activity-title">{t("activity.title")}</h2>
        <p class="muted">{t("activity.explanation")}</p>
        <form class="filters" method="get" action="/settings/activity">
          <label>
            {t("activity.kind")}
            <select name="kind">
              <option value="" selected={filters.kind === ""}>
                {t("activity.kind.all")}
              </option>
              {ACTIVITY_KINDS.map((kind) => (
                <option value={kind} selected={filters.kind === kind}>
                  {label(KIND_LABELS, kind)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t("activity.from")}
            <input type="date" name="from" value={filters.from} />
          </label>
          <label>
            {t("activity.to")}
            <input type="date" name="to" value={filters.to} />
          </label>
          <label>
            {t("activity.resource")}
            <input type="text" name="resource" value={filters.resource} maxLength={100} />
          </label>
          <button type="submit">{t("activity.filter")}</button>
        </form>
        {props.entries.length === 0 ? (
          <p class="muted">{t("activity.none")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t("activity.when")}</th>
                <th scope="col">{t("activity.action")}</th>
                <th scope="col">{t("activity.resource")}</th>
                <th scope="col" class="optional">
                  {t("activity.by")}
                </th>
                <th scope="col" class="optional">
                  {t("activity.address")}
                </th>
              </tr>
            </thead>
            <tbody>
              {props.entries.map((entry) => (
                <tr>
                  <td>{date.format(new Date(entry.at))} UTC</td>
                  <td>{label(ACTION_LABELS, entry.action)}</td>
                  <td>
                    {entry.resourceType === "meeting" && entry.resourceId ? (
                      <a href={`/meetings/${entry.resourceId}`}>{entry.resourceId}</a>
                    ) : (
                      (entry.resourceId ?? "—")
                    )}
                  </td>
                  <td class="optional">
                    {label(CREDENTIAL_LABELS, entry.credentialType)}
                    {entry.credentialType === "api_key" && entry.credentialId ? ` ${entry.credentialId}` : ""}
                  </td>
                  <td class="optional">{entry.clientAddress ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <NextPageLink frame={frame} href={props.nextHref} />
      </section>
    </Layout>
  );
}

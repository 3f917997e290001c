import type { MeetingView } from "../../meetings/app.ts";
import { CsrfField, type PageFrame } from "../layout.tsx";

/**
 * The meeting page's retention and legal hold (issue 23): whether a hold is on it (its own, which
 * this form sets and lifts, or its client folder's, lifted on Clients), and when the account's
 * retention policy deletes it and its recording.
 */
export function MeetingRetention({ frame, meeting }: { frame: PageFrame; meeting: MeetingView }) {
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" });
  const when = (iso: string) => date.format(new Date(iso));
  const { retention } = meeting;
  return (
    <section aria-labelledby="hold-title" id="retention">
      <h2 id="hold-title">{t("hold.title")}</h2>
      {meeting.legal_hold && <p class="notice">{t("hold.onMeeting")}</p>}
      {meeting.legal_hold_inherited && (
        <p class="notice">
          <a href="/clients">{t("hold.onClient")}</a>
        </p>
      )}
      {retention.delete_at && <p>{t("hold.deletesAt", { date: when(retention.delete_at) })}</p>}
      {retention.recording_delete_at && <p>{t("hold.recordingDeletesAt", { date: when(retention.recording_delete_at) })}</p>}
      {meeting.recording_deleted_at && <p class="muted">{t("hold.recordingDeleted", { date: when(meeting.recording_deleted_at) })}</p>}
      {!meeting.legal_hold && !meeting.legal_hold_inherited && !retention.delete_at && <p class="muted">{t("hold.kept")}</p>}
      <form method="post" action={`/meetings/${meeting.id}/hold`}>
        <CsrfField frame={frame} />
        <input type="hidden" name="legal_hold" value={meeting.legal_hold ? "false" : "true"} />
        <button type="submit" class="secondary">
          {meeting.legal_hold ? t("hold.lift") : t("hold.place")}
        </button>
      </form>
    </section>
  );
}

import { CsrfField, Layout, Notice, type PageFrame, type PageNotice } from "../layout.tsx";
import type { RedactionDefaults } from "../../meetings/app.ts";
import { fieldAttrs, type FormState } from "../form-state.ts";
import { FieldError, TitleAndLanguage, VocabularyField } from "./fields.tsx";
import { LiveTranscript } from "./live-transcript.tsx";
import { RedactionField } from "./redaction-field.tsx";

/** A recording started in the browser and never finished (a draft of source live_recording). */
export interface UnfinishedRecording {
  id: string;
  title: string | null;
  createdAt: string;
  parts: number;
  bytes: number;
}

/**
 * Record in the browser. Everything here needs JavaScript and the microphone, which browsers
 * give only to a secure context (https, or this computer): the page says so instead of failing.
 * Unfinished recordings are offered first (process what arrived, or discard), without script.
 */
export function RecordPage(props: { frame: PageFrame; redaction: RedactionDefaults; unfinished: UnfinishedRecording[]; notice?: PageNotice; refused: FormState | null }) {
  const { frame, redaction, unfinished, notice } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeStyle: "short" });
  return (
    <Layout frame={frame}>
      <h1>{t("record.title")}</h1>
      <Notice notice={notice} />
      <noscript>
        <p class="error">{t("record.needsScript")}</p>
      </noscript>
      <p class="error" role="alert" data-insecure hidden>
        {t("record.insecure")}
      </p>
      <p class="notice" role="status" data-resumed hidden data-text={t("record.resumed")} />
      {unfinished.length > 0 && (
        <section aria-labelledby="unfinished-title" class="notice unfinished">
          <h2 id="unfinished-title">{t("rec.unfinished")}</h2>
          <p>{t("rec.unfinishedHelp")}</p>
          <ul class="unfinished-list">
            {unfinished.map((draft) => {
              const started = date.format(new Date(draft.createdAt));
              // A discard without its box ticked comes back with the message at this recording's box.
              const refused = props.refused?.values.draft === draft.id ? props.refused : null;
              return (
                <li data-draft={draft.id}>
                  <a href={`/meetings/${draft.id}`}>{draft.title ?? t("rec.untitled")}</a>
                  <small class="muted">
                    {draft.parts > 0
                      ? t("rec.draftSize", { date: started, megabytes: (draft.bytes / 1e6).toFixed(1) })
                      : t("rec.draftEmpty", { date: started })}
                  </small>
                  <div class="unfinished-actions">
                    {draft.parts > 0 && (
                      <form method="post" action={`/meetings/${draft.id}/finish`}>
                        <CsrfField frame={frame} />
                        <button type="submit">{t("rec.finish")}</button>
                      </form>
                    )}
                    <form method="post" action={`/record/drafts/${draft.id}/discard`}>
                      <CsrfField frame={frame} />
                      <label class="inline">
                        <input type="checkbox" name="confirm" value="yes" required {...fieldAttrs("confirm", refused)} />
                        {t("rec.discardConfirm")}
                      </label>
                      <FieldError name="confirm" state={refused} t={t} />
                      <button type="submit" class="danger">
                        {t("rec.discard")}
                      </button>
                    </form>
                  </div>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      <form
        id="recorder"
        class="stack"
        data-csrf={frame.csrfToken}
        data-starting={t("record.starting")}
        data-recording={t("record.recording")}
        data-saving={t("record.saving")}
        data-offline={t("record.offline")}
        data-denied={t("record.denied")}
        data-pause={t("rec.pause")}
        data-resume={t("rec.resume")}
        data-paused={t("rec.pausedStatus")}
        data-minutes={t("rec.minutes")}
        data-leave={t("rec.leave")}
        data-live={t("rec.live")}
        data-paused-label={t("rec.paused")}
      >
        <TitleAndLanguage frame={frame} />
        <VocabularyField frame={frame} />
        <RedactionField frame={frame} defaults={redaction} />
        <label data-mic-field hidden>
          {t("rec.microphone")}
          <select name="microphone" data-mic>
            <option value="">{t("rec.micDefault")}</option>
          </select>
        </label>
        <div class="recorder-controls" hidden data-controls>
          <button type="button" data-start>
            {t("record.start")}
          </button>
          <button type="button" data-pause disabled>
            {t("rec.pause")}
          </button>
          <button type="button" class="danger" data-stop disabled>
            {t("record.stop")}
          </button>
          <label class="inline">
            {t("record.level")}
            <meter min={0} max={1} value={0} data-level />
          </label>
        </div>
        <div class="rec-indicator" data-rec hidden role="status" aria-live="polite">
          <span class="rec-dot" aria-hidden="true" />
          <strong data-rec-label>{t("rec.live")}</strong>
          <output data-elapsed aria-hidden="true">
            00:00
          </output>
          <span class="visually-hidden" data-rec-spoken />
        </div>
        <p class="muted" role="status" aria-live="polite" data-status />
      </form>
      <LiveTranscript frame={frame} />
    </Layout>
  );
}

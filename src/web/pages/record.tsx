import { Layout, type PageFrame } from "../layout.tsx";
import type { RedactionDefaults } from "../../meetings/app.ts";
import { TitleAndLanguage, VocabularyField } from "./fields.tsx";
import { LiveTranscript } from "./live-transcript.tsx";
import { RedactionField } from "./redaction-field.tsx";

/**
 * Record in the browser. Everything here needs JavaScript and the microphone, which browsers
 * give only to a secure context (https, or this computer): the page says so instead of failing.
 */
export function RecordPage({ frame, redaction }: { frame: PageFrame; redaction: RedactionDefaults }) {
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("record.title")}</h1>
      <noscript>
        <p class="error">{t("record.needsScript")}</p>
      </noscript>
      <p class="error" role="alert" data-insecure hidden>
        {t("record.insecure")}
      </p>
      <p class="notice" role="status" data-resumed hidden data-text={t("record.resumed")} />
      <form
        id="recorder"
        class="stack"
        data-csrf={frame.csrfToken}
        data-starting={t("record.starting")}
        data-recording={t("record.recording")}
        data-saving={t("record.saving")}
        data-offline={t("record.offline")}
        data-denied={t("record.denied")}
      >
        <TitleAndLanguage frame={frame} />
        <VocabularyField frame={frame} />
        <RedactionField frame={frame} defaults={redaction} />
        <div class="recorder-controls" hidden data-controls>
          <button type="button" data-start>
            {t("record.start")}
          </button>
          <button type="button" class="danger" data-stop disabled>
            {t("record.stop")}
          </button>
          <label class="inline">
            {t("record.level")}
            <meter min={0} max={1} value={0} data-level />
          </label>
          <span>
            {t("record.elapsed")} <output data-elapsed>00:00</output>
          </span>
        </div>
        <p class="muted" role="status" aria-live="polite" data-status />
      </form>
      <LiveTranscript frame={frame} />
    </Layout>
  );
}

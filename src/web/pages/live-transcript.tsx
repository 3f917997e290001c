import type { PageFrame } from "../layout.tsx";

/**
 * Where the recorder page shows the live transcript (islands/live-transcript.ts fills it while a
 * recording runs): hidden until then, marked provisional, read out politely as lines arrive.
 */
export function LiveTranscript({ frame }: { frame: PageFrame }) {
  const { t } = frame;
  return (
    <section id="live-transcript" class="live-transcript" aria-labelledby="live-transcript-title" hidden data-empty>
      <h2 id="live-transcript-title">
        {t("live.title")} <span class="badge live-badge">{t("live.provisional")}</span>
      </h2>
      <p class="muted">{t("live.note")}</p>
      <p class="muted live-waiting">{t("live.waiting")}</p>
      <div class="live-lines" aria-live="polite" data-live-lines />
    </section>
  );
}

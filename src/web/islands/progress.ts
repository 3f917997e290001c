/**
 * Live progress on a meeting page being processed: polls the meeting's progress every two
 * seconds, shows the stage and percentage, and reloads the page when processing ends (the page
 * then shows the transcript and report) or a document or a report written again is ready.
 */
export function enhanceProgress(): void {
  const section = document.querySelector<HTMLElement>("#progress[data-progress-url]");
  if (!section) return;
  const bar = section.querySelector("progress");
  const stage = section.querySelector<HTMLElement>("[data-stage]");
  let pendingDocuments: number | undefined;
  let rewritingReport: boolean | undefined;
  const poll = async () => {
    try {
      const response = await fetch(section.dataset.progressUrl!, { credentials: "same-origin", headers: { accept: "application/json" } });
      if (!response.ok) return;
      const state = (await response.json()) as {
        status: string;
        status_text: string;
        stage_text: string | null;
        progress: number | null;
        pending_documents: number;
        rewriting_report: boolean;
      };
      if (bar && state.progress !== null) bar.value = Math.round(state.progress * 100);
      if (stage) stage.textContent = state.stage_text ?? state.status_text;
      const finished = state.status === "completed" || state.status === "failed";
      const written = (pendingDocuments !== undefined && state.pending_documents < pendingDocuments) || (rewritingReport === true && !state.rewriting_report);
      pendingDocuments = state.pending_documents;
      rewritingReport = state.rewriting_report;
      if ((finished && state.pending_documents === 0 && !state.rewriting_report) || written) {
        location.reload();
        return;
      }
    } catch {
      // A network cut: try again at the next tick.
    }
    setTimeout(poll, 2000);
  };
  void poll();
}

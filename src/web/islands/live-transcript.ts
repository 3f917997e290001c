/**
 * The live transcript under the recorder (web/live-routes.tsx): the part still gathering is sent
 * as it grows (the recorder sends whole parts itself), and the provisional text is polled and
 * shown in <section id="live-transcript"> until the recording is finished.
 */
type Part = { draft: string; index: number; blob: Blob; whole: boolean };
type Live = { live: boolean; enabled: boolean; after: number; segments: { text: string }[] };

export function enhanceLiveTranscript(): void {
  const form = document.querySelector<HTMLFormElement>("form#recorder");
  const section = document.querySelector<HTMLElement>("#live-transcript");
  const lines = section?.querySelector<HTMLElement>("[data-live-lines]");
  if (!form || !section || !lines) return;
  const csrf = form.dataset.csrf ?? "";
  let draft = "";
  let after = 0;
  let pending: Part | null = null;
  let sending = false;

  // The newest gathering part only: one on its way, the latest waiting behind it.
  const sendTail = async () => {
    if (sending || !pending) return;
    const part = pending;
    pending = null;
    sending = true;
    await fetch(`/meetings/${part.draft}/live/${part.index}`, { method: "PUT", credentials: "same-origin", headers: { "x-csrf-token": csrf, "content-type": "application/octet-stream" }, body: part.blob }).catch(() => {});
    sending = false;
    void sendTail();
  };

  const poll = async () => {
    let answer: Live | null = null;
    try {
      const response = await fetch(`/meetings/${draft}/live?after=${after}`, { credentials: "same-origin" });
      if (response.ok) answer = (await response.json()) as Live;
    } catch {
      // offline for a moment: asked again below
    }
    if (answer && !answer.enabled) {
      section.hidden = true;
      return;
    }
    if (answer) {
      for (const segment of answer.segments) lines.append(Object.assign(document.createElement("p"), { textContent: segment.text }));
      after = answer.after + answer.segments.length;
      section.toggleAttribute("data-empty", after === 0);
    }
    if (!answer || answer.live) setTimeout(poll, 2000);
  };

  form.addEventListener("recorder:part", (event) => {
    const part = (event as CustomEvent<Part>).detail;
    if (!draft) {
      draft = part.draft;
      section.hidden = false;
      void poll();
    }
    if (!part.whole) {
      pending = part;
      void sendTail();
    }
  });
}

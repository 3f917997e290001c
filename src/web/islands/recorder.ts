import { createDraft, finishDraft, Refused, sendPart, withRetry } from "./drafts.ts";
import { openPartStore, type StoredPart } from "./part-store.ts";

/** How often MediaRecorder hands over a chunk: a cut loses at most this much that is not yet stored. */
const CHUNK_MS = 4000;

/**
 * The Record page: the microphone through MediaRecorder (WebM/Opus), a chunk every few seconds,
 * kept in IndexedDB until the server has it; chunks are gathered into one part until it holds the
 * server's minimum part size (a quiet room at a low bitrate gives small chunks), so only the last
 * part is ever smaller; a level meter and the elapsed time; Stop sends
 * what is left and finishes the draft, which queues the meeting. Parts of an earlier recording
 * that never reached the server (tab closed, network cut) are sent when the page opens again,
 * and its draft is then finished from its meeting page.
 */
export function enhanceRecorder(): void {
  const form = document.querySelector<HTMLFormElement>("form#recorder");
  if (!form) return;
  const say = (key: string) => form.dataset[key] ?? key;
  const status = form.querySelector<HTMLElement>("[data-status]")!;
  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === "undefined") {
    document.querySelector<HTMLElement>("[data-insecure]")!.hidden = false;
    return;
  }
  const csrf = form.dataset.csrf!;
  const controls = form.querySelector<HTMLElement>("[data-controls]")!;
  const startButton = form.querySelector<HTMLButtonElement>("[data-start]")!;
  const stopButton = form.querySelector<HTMLButtonElement>("[data-stop]")!;
  const level = form.querySelector<HTMLMeterElement>("[data-level]")!;
  const elapsed = form.querySelector<HTMLOutputElement>("[data-elapsed]")!;
  controls.hidden = false;

  const storePromise = openPartStore();
  // Parts are sent one at a time, in order; a failure waits and tries again.
  let sending = Promise.resolve();
  const send = (part: StoredPart) => {
    sending = sending.then(async () => {
      await withRetry(() => sendPart(csrf, part.draft, part.index, part.blob), () => (status.textContent = say("offline")));
      await (await storePromise).remove(part.draft, part.index);
    });
    return sending;
  };

  // What an earlier page did not send.
  void storePromise.then(async (store) => {
    const left = await store.all();
    if (left.length === 0) return;
    for (const part of left) void send(part);
    await sending;
    const resumed = document.querySelector<HTMLElement>("[data-resumed]")!;
    const drafts = [...new Set(left.map((part) => part.draft))];
    resumed.textContent = resumed.dataset.text ?? "";
    for (const draft of drafts) {
      const link = document.createElement("a");
      link.href = `/meetings/${draft}`;
      link.textContent = ` /meetings/${draft}`;
      resumed.append(link);
    }
    resumed.hidden = false;
  });

  startButton.addEventListener("click", async () => {
    startButton.disabled = true;
    status.textContent = say("starting");
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false } });
    } catch {
      status.textContent = say("denied");
      startButton.disabled = false;
      return;
    }
    const fields = Object.fromEntries([...new FormData(form)].map(([name, value]) => [name, String(value)]));
    let draft: { id: string; min_part_bytes: number };
    try {
      draft = await withRetry(() => createDraft(csrf, { ...fields, kind: "recording" }));
    } catch (error) {
      // Refused (the month's web app quota, say): say why, and let go of the microphone.
      for (const track of stream.getTracks()) track.stop();
      status.textContent = error instanceof Refused ? error.message : String(error);
      startButton.disabled = false;
      return;
    }
    const mimeType = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus"].find((type) => MediaRecorder.isTypeSupported(type));
    const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : {});
    const store = await storePromise;
    let index = 0;
    // The chunks of the part being gathered, stored in IndexedDB under its number as it grows.
    let chunks: Blob[] = [];
    let gathering: StoredPart | undefined;
    // Each part is stored, then sent once whole; the chain is extended as chunks arrive, so Stop can wait for all of it.
    let storing = Promise.resolve();
    recorder.addEventListener("dataavailable", (event) => {
      if (event.data.size === 0) return;
      chunks.push(event.data);
      const part = { draft: draft.id, index, blob: new Blob(chunks, { type: event.data.type }) };
      const whole = part.blob.size >= draft.min_part_bytes;
      if (whole) {
        index++;
        chunks = [];
        gathering = undefined;
      } else gathering = part;
      storing = storing.then(() => store.put(part)).then(() => void (whole && send(part)));
      // Hook for the live transcript (islands/live-transcript.ts): every part as it grows.
      form.dispatchEvent(new CustomEvent("recorder:part", { detail: { ...part, whole } }));
    });

    const audio = new AudioContext();
    const analyser = audio.createAnalyser();
    analyser.fftSize = 1024;
    audio.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const began = Date.now();
    let running = true;
    const tick = () => {
      if (!running) return;
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += sample * sample;
      level.value = Math.min(1, Math.sqrt(sum / samples.length) * 4);
      const seconds = Math.floor((Date.now() - began) / 1000);
      elapsed.value = `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
      requestAnimationFrame(tick);
    };
    recorder.start(CHUNK_MS);
    tick();
    status.textContent = say("recording");
    stopButton.disabled = false;

    stopButton.addEventListener(
      "click",
      async () => {
        stopButton.disabled = true;
        status.textContent = say("saving");
        const stopped = new Promise((resolve) => recorder.addEventListener("stop", resolve, { once: true }));
        recorder.stop();
        await stopped;
        running = false;
        for (const track of stream.getTracks()) track.stop();
        void audio.close();
        // The last chunk's dataavailable came before stop: once stored, the part still gathering
        // is the recording's last, which may be smaller than the minimum.
        await storing;
        if (gathering) void send(gathering);
        await sending;
        try {
          location.href = await withRetry(() => finishDraft(csrf, draft.id), () => (status.textContent = say("offline")));
        } catch (error) {
          // Every part is on the server: the draft's page can finish it later.
          status.textContent = error instanceof Refused ? error.message : String(error);
          const link = Object.assign(document.createElement("a"), { href: `/meetings/${draft.id}`, textContent: ` /meetings/${draft.id}` });
          status.append(link);
        }
      },
      { once: true },
    );
  });
}

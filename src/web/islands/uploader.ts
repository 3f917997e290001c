import { looksLikeRecordingFile } from "../media/recording-types.ts";
import { createDraft, finishDraft, receivedParts, Refused, sendPartTracked, withRetry } from "./drafts.ts";

/**
 * The upload form, resumable: the file goes as a draft in numbered parts, each retried after a
 * cut; the draft of a file is remembered in localStorage, so choosing the same file again after
 * a reload sends only the parts the server does not have. A file that is not audio or video is
 * refused at its field before anything is sent. The progress bar moves by the bytes sent (the
 * upload events of each part), in percent and megabytes; a failure says why: a cut is retried and
 * says so, a refusal gives the server's reason. Without JavaScript the form posts the file in one request.
 */
export function enhanceUploader(): void {
  const form = document.querySelector<HTMLFormElement>("form#upload");
  if (!form) return;
  const bar = form.querySelector("progress")!;
  const status = form.querySelector<HTMLElement>("[data-upload-status]")!;
  // The bytes sent, as often as the browser tells: not a live region (the status says the sentences).
  const sent = form.querySelector<HTMLElement>("[data-upload-bytes]")!;
  const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const input = form.querySelector<HTMLInputElement>("input[type=file]")!;
  const fileError = form.querySelector<HTMLElement>("[data-file-error]")!;
  const csrf = form.dataset.csrf!;
  const text = (key: string, values: Record<string, string | number> = {}) =>
    (form.dataset[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ""));
  const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

  /** The message at the file field (none: the field is fine). */
  const fieldError = (message?: string): undefined => {
    fileError.textContent = message ?? "";
    fileError.hidden = !message;
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    return undefined;
  };
  /** The chosen file when it can be a recording; otherwise the field says why, and nothing. */
  const checked = (): File | undefined => {
    const file = input.files?.[0];
    if (!file) return fieldError();
    if (!looksLikeRecordingFile(file)) return fieldError(text("notRecording"));
    if (file.size > Number(form.dataset.maxBytes)) return fieldError(text("tooLarge"));
    fieldError();
    return file;
  };
  input.addEventListener("change", () => void checked());

  const upload = async (file: File) => {
    const remembered = `verbatim-upload:${file.name}:${file.size}:${file.lastModified}`;
    let draftId = localStorage.getItem(remembered);
    let received = new Set<number>();
    if (draftId) {
      try {
        const state = await receivedParts(draftId);
        if (state.status === "draft") received = new Set(state.received);
        else draftId = null;
      } catch {
        draftId = null;
      }
    }
    let partBytes = 8 * 1024 * 1024;
    if (!draftId) {
      const fields = Object.fromEntries([...new FormData(form)].filter(([, value]) => typeof value === "string").map(([name, value]) => [name, String(value)]));
      const draft = await withRetry(() => createDraft(csrf, { ...fields, kind: "upload", file_name: file.name }));
      draftId = draft.id;
      partBytes = draft.part_bytes;
      localStorage.setItem(remembered, draftId);
    }
    const parts = Math.ceil(file.size / partBytes);
    let done = [...received].reduce((sum, index) => sum + Math.min(partBytes, file.size - index * partBytes), 0);
    let retrying = false;
    const show = (sending = 0) => {
      // Bytes flow again after a cut: the status stops saying it is retrying.
      if (retrying && sending > 0) status.textContent = text("sending", { percent: bar.value });
      retrying &&= sending === 0;
      const bytes = Math.min(file.size, done + sending);
      const percent = Math.floor((bytes / file.size) * 100);
      bar.value = percent;
      bar.setAttribute("aria-valuenow", String(percent));
      sent.textContent = text("bytes", { percent, done: megabytes(bytes), total: megabytes(file.size) });
    };
    show();
    status.textContent = text("sending", { percent: bar.value });
    for (let index = 0; index < parts; index++) {
      if (received.has(index)) continue;
      const slice = file.slice(index * partBytes, Math.min(file.size, (index + 1) * partBytes));
      await withRetry(
        () => sendPartTracked(csrf, draftId, index, slice, show),
        (seconds) => {
          retrying = true;
          status.textContent = text("retrying", { seconds });
        },
      );
      done += slice.size;
      show();
    }
    status.textContent = text("processing");
    const meetingUrl = await withRetry(() => finishDraft(csrf, draftId, file.size));
    localStorage.removeItem(remembered);
    location.href = meetingUrl;
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = checked();
    if (!file) return input.focus();
    bar.hidden = false;
    button.disabled = true;
    status.classList.remove("error");
    upload(file).catch((error: unknown) => {
      // A refusal is final: the server's reason (not a recording, the month's quota…), at the file field when it is the file's.
      const notRecording = error instanceof Refused && error.status === 415;
      const reason = notRecording ? text("notRecording") : error instanceof Refused ? error.message : String(error);
      if (notRecording) fieldError(reason);
      status.textContent = text(error instanceof Refused ? "refused" : "failed", { reason });
      status.classList.add("error");
      bar.hidden = true;
      sent.textContent = "";
      button.disabled = false;
    });
  });
}

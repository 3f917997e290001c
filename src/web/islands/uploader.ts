import { createDraft, finishDraft, receivedParts, Refused, sendPart, withRetry } from "./drafts.ts";

/**
 * The upload form, resumable: the file goes as a draft in numbered parts, each retried after a
 * cut; the draft of a file is remembered in localStorage, so choosing the same file again after
 * a reload sends only the parts the server does not have. A progress bar shows the bytes the
 * server holds. Without JavaScript the form posts the file in one request.
 */
export function enhanceUploader(): void {
  const form = document.querySelector<HTMLFormElement>("form#upload");
  if (!form) return;
  const bar = form.querySelector("progress")!;
  const status = form.querySelector<HTMLElement>("[data-upload-status]")!;
  const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const csrf = form.dataset.csrf!;
  const text = (key: string, values: Record<string, string | number> = {}) =>
    (form.dataset[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ""));

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
    const show = () => {
      const percent = Math.floor((done / file.size) * 100);
      bar.value = percent;
      status.textContent = text("sending", { percent });
    };
    show();
    for (let index = 0; index < parts; index++) {
      if (received.has(index)) continue;
      const slice = file.slice(index * partBytes, Math.min(file.size, (index + 1) * partBytes));
      await withRetry(() => sendPart(csrf, draftId, index, slice), (seconds) => (status.textContent = text("retrying", { seconds })));
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
    const file = form.querySelector<HTMLInputElement>("input[type=file]")!.files?.[0];
    if (!file) return;
    if (file.size > Number(form.dataset.maxBytes)) {
      status.textContent = text("tooLarge");
      return;
    }
    bar.hidden = false;
    button.disabled = true;
    status.classList.remove("error");
    upload(file).catch((error: unknown) => {
      status.textContent = text("failed", { reason: error instanceof Refused ? error.message : String(error) });
      status.classList.add("error");
      button.disabled = false;
    });
  });
}

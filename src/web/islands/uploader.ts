/**
 * The upload form with a progress bar: the same form, sent by XMLHttpRequest (fetch reports no
 * upload progress). The server answers with a redirect to the new meeting, which the browser
 * follows; the page then goes there.
 */
export function enhanceUploader(): void {
  const form = document.querySelector<HTMLFormElement>("form#upload");
  if (!form) return;
  const bar = form.querySelector("progress")!;
  const status = form.querySelector<HTMLElement>("[data-upload-status]")!;
  const button = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const text = (key: string, values: Record<string, string | number> = {}) =>
    (form.dataset[key] ?? key).replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ""));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const file = form.querySelector<HTMLInputElement>("input[type=file]")!.files?.[0];
    if (file && file.size > Number(form.dataset.maxBytes)) {
      status.textContent = text("tooLarge");
      return;
    }
    const request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.upload.addEventListener("progress", (progress) => {
      if (!progress.lengthComputable) return;
      const percent = Math.floor((progress.loaded / progress.total) * 100);
      bar.value = percent;
      status.textContent = text("sending", { percent });
    });
    request.addEventListener("load", () => {
      if (request.status < 400 && request.responseURL && !request.responseURL.endsWith("/meetings/new")) {
        status.textContent = text("processing");
        location.href = request.responseURL;
        return;
      }
      // The server answered with a page that says what was wrong: show its sentence here.
      const page = new DOMParser().parseFromString(request.responseText, "text/html");
      status.textContent = text("failed", { reason: page.querySelector("main p")?.textContent ?? String(request.status) });
      status.classList.add("error");
      bar.hidden = true;
      button.disabled = false;
    });
    request.addEventListener("error", () => {
      status.textContent = text("failed", { reason: "network" });
      button.disabled = false;
    });
    bar.hidden = false;
    button.disabled = true;
    request.send(new FormData(form));
  });
}

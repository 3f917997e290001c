/**
 * Confirmed forms (pages/confirm.tsx): without script a required "I understand" box; with it,
 * the box is hidden and the browser's own confirm() asks the form's question on submit.
 */
export function enhanceConfirmations(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-confirm]")) {
    const box = form.querySelector<HTMLInputElement>("[data-confirm-box] input[name=confirm]");
    if (!box) continue;
    box.closest<HTMLElement>("[data-confirm-box]")!.hidden = true;
    box.required = false;
    // Back to this page (the back button's cache): ask again next time.
    addEventListener("pageshow", () => (box.checked = false));
    form.addEventListener("submit", (event) => {
      if (box.checked) return;
      if (confirm(form.dataset.confirm!)) box.checked = true;
      else event.preventDefault();
    });
  }
}

/**
 * Copy buttons: one copies a field's value (a new API key), another fetches a text and copies it
 * (the meeting's export bundle). Hidden until this script shows them, as they need it.
 */
export function enhanceCopyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy-target], button[data-copy-url]")) {
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener("click", async () => {
      const { copyTarget, copyUrl, copied } = button.dataset;
      try {
        const text = copyTarget
          ? (document.getElementById(copyTarget) as HTMLInputElement).value
          : await (await fetch(copyUrl!, { credentials: "same-origin" })).text();
        await navigator.clipboard.writeText(text);
        button.textContent = copied ?? label;
        setTimeout(() => (button.textContent = label), 2000);
      } catch {
        // No clipboard (plain http from another host is not a secure context): select the field instead.
        if (copyTarget) (document.getElementById(copyTarget) as HTMLInputElement).select();
        else if (copyUrl) location.href = copyUrl;
      }
    });
  }
}

/**
 * Correcting a misheard word while listening: a line's Correct link opens its words in place
 * (the player keeps playing; Alt shortcuts still work), Ctrl+Enter or Save stores them, Escape
 * or Cancel puts the line back. Without JavaScript the link opens the line's own form page.
 */
export function enhanceCorrector(): void {
  const list = document.querySelector<HTMLOListElement>("ol.transcript[data-csrf]");
  if (!list) return;
  const { csrf, save, cancel, corrected } = list.dataset;

  list.addEventListener("click", (event) => {
    const link = (event.target as Element).closest<HTMLAnchorElement>("a.edit");
    if (!link) return;
    event.preventDefault();
    const line = link.closest("li")!;
    const words = line.querySelector("p")!;
    if (line.querySelector("textarea")) return;
    const editor = document.createElement("div");
    editor.className = "editor";
    const field = document.createElement("textarea");
    field.value = words.textContent ?? "";
    field.rows = 2;
    field.maxLength = 5000;
    field.setAttribute("aria-label", link.getAttribute("aria-label") ?? "");
    const saveButton = Object.assign(document.createElement("button"), { type: "button", textContent: save ?? "Save" });
    const cancelButton = Object.assign(document.createElement("button"), { type: "button", textContent: cancel ?? "Cancel", className: "secondary" });
    const message = Object.assign(document.createElement("span"), { className: "error", role: "alert" });
    editor.append(field, saveButton, cancelButton, message);
    words.hidden = true;
    line.append(editor);
    field.focus();

    const close = () => {
      editor.remove();
      words.hidden = false;
      link.focus();
    };
    const store = async () => {
      saveButton.disabled = true;
      try {
        const response = await fetch(link.pathname.replace(/\/edit$/, ""), {
          method: "POST",
          credentials: "same-origin",
          headers: { "x-csrf-token": csrf ?? "", accept: "application/json" },
          body: new URLSearchParams({ text: field.value }),
        });
        if (!response.ok) {
          const page = new DOMParser().parseFromString(await response.text(), "text/html");
          message.textContent = page.querySelector("main p")?.textContent ?? String(response.status);
          return;
        }
        words.textContent = ((await response.json()) as { text: string }).text;
        // The words the person typed have no timings of their own.
        words.removeAttribute("data-w");
        if (!line.classList.contains("corrected")) {
          line.classList.add("corrected");
          link.after(Object.assign(document.createElement("span"), { className: "muted small", textContent: ` · ${corrected ?? ""}` }));
        }
        close();
      } finally {
        saveButton.disabled = false;
      }
    };
    saveButton.addEventListener("click", () => void store());
    cancelButton.addEventListener("click", close);
    field.addEventListener("keydown", (key) => {
      if (key.key === "Escape") close();
      else if (key.key === "Enter" && (key.ctrlKey || key.metaKey)) {
        key.preventDefault();
        void store();
      }
    });
  });
}

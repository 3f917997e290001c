/**
 * The meetings list: a "select all" box over the rows' checkboxes (hidden until this script shows
 * it), and a new sort order applied when it is chosen (without the script, by the Search button).
 */
export function enhanceListSelect(): void {
  const all = document.querySelector<HTMLInputElement>("input#select-all");
  if (all) {
    const boxes = () => document.querySelectorAll<HTMLInputElement>('input[type="checkbox"][name="ids"]');
    all.hidden = false;
    all.addEventListener("change", () => boxes().forEach((box) => (box.checked = all.checked)));
  }
  for (const select of document.querySelectorAll<HTMLSelectElement>("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form?.requestSubmit());
  }
}

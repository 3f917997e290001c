/**
 * The transcript workspace (issue 25): search inside the transcript, accents and case aside, with
 * its matches marked and Enter / Shift+Enter (or the arrows) going through them; and the speaker
 * names saved in place, every place showing a name updated, playback going on.
 */
export function enhanceWorkspace(): void {
  enhanceSearch();
  enhanceSpeakerNames();
}

const fold = (text: string) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();

function enhanceSearch(): void {
  const box = document.querySelector<HTMLElement>(".tsearch");
  const lines = [...document.querySelectorAll<HTMLElement>("ol.transcript li > p")];
  if (!box || lines.length === 0) return;
  box.hidden = false;
  const input = box.querySelector("input")!;
  const out = box.querySelector("output")!;
  let marks: HTMLElement[] = [];
  let at = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const go = (step: number) => {
    if (marks.length === 0) return;
    marks[at]?.classList.remove("current");
    at = (at + step + marks.length) % marks.length;
    marks[at]!.classList.add("current");
    dispatchEvent(new Event("ws:away"));
    marks[at]!.scrollIntoView({ block: "center" });
    out.textContent = box.dataset.count!.replace("{n}", String(at + 1)).replace("{m}", String(marks.length));
  };
  const search = () => {
    for (const mark of marks) {
      const line = mark.parentElement;
      if (line) line.textContent = line.textContent;
    }
    marks = [];
    at = -1;
    const query = fold(input.value.trim());
    out.textContent = query && box.dataset.none ? box.dataset.none : "";
    if (!query) return;
    for (const line of lines) {
      const text = line.textContent ?? "";
      // The folded text, and where each of its characters comes from in the line's own (the
      // same place, unless folding changed the length: then character by character).
      let folded = fold(text);
      let from: number[] | null = null;
      if (folded.length !== text.length) {
        folded = "";
        from = [];
        for (let i = 0; i < text.length; i++) {
          const f = fold(text[i]!);
          folded += f;
          for (let k = 0; k < f.length; k++) from.push(i);
        }
      }
      const found: [number, number][] = [];
      for (let i = folded.indexOf(query); i >= 0; i = folded.indexOf(query, i + query.length)) found.push(from ? [from[i]!, from[i + query.length - 1]! + 1] : [i, i + query.length]);
      const node = line.firstChild;
      if (!node) continue;
      const own: HTMLElement[] = [];
      for (const [start, end] of found.reverse()) {
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, end);
        const mark = document.createElement("mark");
        range.surroundContents(mark);
        own.unshift(mark);
      }
      marks.push(...own);
    }
    go(1);
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    clearTimeout(timer);
    if (marks.length === 0) search();
    else go(event.shiftKey ? -1 : 1);
  });
  for (const button of box.querySelectorAll<HTMLButtonElement>("button[data-step]")) button.addEventListener("click", () => go(Number(button.dataset.step)));
}

function enhanceSpeakerNames(): void {
  const form = document.querySelector<HTMLFormElement>("form#speaker-names");
  if (!form) return;
  const out = form.querySelector("output");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const response = await fetch(form.action, { method: "POST", credentials: "same-origin", headers: { accept: "application/json" }, body: new URLSearchParams(new FormData(form) as never) });
    const body = (await response.json().catch(() => ({}))) as { speakers?: { label: string; name: string }[]; error?: string };
    if (!response.ok || !body.speakers) {
      if (out) out.textContent = body.error ?? String(response.status);
      return;
    }
    for (const { label, name } of body.speakers) {
      const shown = name || label;
      for (const element of document.querySelectorAll<HTMLElement>(`.speaker[data-spk="${label}"]`)) element.textContent = shown;
      for (const turn of document.querySelectorAll(`svg.timeline a[data-spk="${label}"]`)) {
        const said = turn.getAttribute("aria-label") ?? "";
        turn.setAttribute("aria-label", shown + said.slice(said.lastIndexOf(", ")));
      }
    }
    if (out) out.textContent = form.dataset.saved ?? "";
  });
}

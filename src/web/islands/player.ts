/**
 * The meeting page's player and transcript: a line's time, a word of a line with word timings, or
 * a turn of the speaker timeline seeks the player there; the line being played is marked
 * (aria-current) and followed on screen until the person scrolls away, when a button brings it
 * back; the speed menu sets the playback rate, and Alt+K / Alt+J / Alt+L play or pause and skip
 * 5 s back or forward from anywhere on the page, even while typing a speaker's name (Alt keeps the
 * shortcuts out of the way of text).
 */
export function enhancePlayer(): void {
  const audio = document.querySelector<HTMLMediaElement>("#player");
  const lines = [...document.querySelectorAll<HTMLLIElement>("ol.transcript > li[data-start]")];
  if (!audio) return;
  const starts = lines.map((line) => Number(line.dataset.start));
  const followButton = document.querySelector<HTMLButtonElement>("#follow");
  let follow = true;
  let current: HTMLLIElement | undefined;
  const show = () => current?.scrollIntoView({ block: "center", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  const setFollow = (on: boolean) => {
    follow = on;
    if (followButton) followButton.hidden = on || !current;
    if (on) show();
  };
  const seek = (seconds: number) => {
    audio.currentTime = seconds;
    void audio.play().catch(() => {});
    follow = true;
    if (followButton) followButton.hidden = true;
  };

  document.addEventListener("click", (event) => {
    const target = event.target as Element;
    const link = target.closest<HTMLAnchorElement | SVGAElement>("a.ts[data-start], svg.timeline a[data-start]");
    if (link) {
      event.preventDefault();
      seek(Number(link.dataset.start));
      return;
    }
    const words = target.closest<HTMLParagraphElement>("ol.transcript p[data-w]");
    if (words && !String(getSelection() ?? "")) {
      const at = wordAt(words, event.clientX, event.clientY);
      if (at !== null) seek(at);
    }
  });
  followButton?.addEventListener("click", () => setFollow(true));
  // The person moves the page: following stops until the button is pressed (or a line is chosen).
  const away = () => follow && current && !audio.paused && setFollow(false);
  for (const type of ["wheel", "touchmove", "ws:away"]) addEventListener(type, away, { passive: true });
  document.addEventListener("keydown", (event) => {
    const typing = (event.target as Element).closest("input, textarea, select, [contenteditable]");
    if (!typing && /^(PageUp|PageDown|ArrowUp|ArrowDown|Home|End| )$/.test(event.key)) away();
  });

  audio.addEventListener("timeupdate", () => {
    // The last line that starts at or before the playhead (lines are in time order).
    let low = 0;
    let high = starts.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (starts[mid]! <= audio.currentTime) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    const line = found >= 0 ? lines[found] : undefined;
    if (line === current) return;
    current?.removeAttribute("aria-current");
    line?.setAttribute("aria-current", "true");
    current = line;
    if (follow && !audio.paused) show();
  });

  const speed = document.querySelector<HTMLSelectElement>("select#speed");
  speed?.addEventListener("change", () => {
    audio.playbackRate = Number(speed.value);
  });

  document.addEventListener("keydown", (event) => {
    if (!event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.code;
    if (key === "KeyK") void (audio.paused ? audio.play().catch(() => {}) : audio.pause());
    else if (key === "KeyJ") audio.currentTime = Math.max(0, audio.currentTime - 5);
    else if (key === "KeyL") audio.currentTime = Math.min(audio.duration || Infinity, audio.currentTime + 5);
    else return;
    event.preventDefault();
  });
}

/**
 * When the word under a point of a line was said: the character there (the caret the browser
 * places at the point), within the line's words (data-w: character offset and start time, in
 * pairs); null off the words.
 */
function wordAt(words: HTMLElement, x: number, y: number): number | null {
  const doc = document as Document & { caretPositionFromPoint?(x: number, y: number): { offsetNode: Node; offset: number } | null };
  const caret = doc.caretPositionFromPoint?.(x, y);
  const range = caret ? null : document.caretRangeFromPoint?.(x, y);
  const node = caret?.offsetNode ?? range?.startContainer;
  if (!node || !words.contains(node)) return null;
  let offset = caret?.offset ?? range!.startOffset;
  const walker = document.createTreeWalker(words, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text && text !== node; text = walker.nextNode()) offset += text.textContent!.length;
  const pairs = words.dataset.w!.split(" ").map(Number);
  let start: number | null = null;
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i]! <= offset) start = pairs[i + 1]!;
  return start;
}

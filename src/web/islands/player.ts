/**
 * The meeting page's player and transcript: a line's time seeks the player there, the line being
 * played is marked (aria-current), the speed menu sets the playback rate, and Alt+K / Alt+J /
 * Alt+L play or pause and skip 5 s back or forward from anywhere on the page, even while typing
 * a speaker's name (Alt keeps the shortcuts out of the way of text).
 */
export function enhancePlayer(): void {
  const audio = document.querySelector<HTMLAudioElement>("audio#player");
  const lines = [...document.querySelectorAll<HTMLLIElement>("ol.transcript > li[data-start]")];
  if (!audio) return;
  const starts = lines.map((line) => Number(line.dataset.start));

  document.addEventListener("click", (event) => {
    const link = (event.target as Element).closest<HTMLAnchorElement>("a.ts[data-start]");
    if (!link) return;
    event.preventDefault();
    audio.currentTime = Number(link.dataset.start);
    void audio.play().catch(() => {});
  });

  let current: HTMLLIElement | undefined;
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

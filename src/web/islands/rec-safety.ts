/**
 * Issue 25 slice rec: what keeps a recording from being lost by a click. While `active()` says a
 * recording runs, leaving the page asks first: beforeunload for reloads, closing and typed URLs,
 * and a confirm() for the app's own links and forms (the nav); a confirmed leave is not asked
 * twice. The screen is kept awake (Wake Lock, where the browser has it), again after the tab comes
 * back, since the browser lets go of it when the tab is hidden.
 */
export function guardLeaving(question: string, active: () => boolean): void {
  let leaving = false;
  addEventListener("beforeunload", (event) => {
    if (!active() || leaving) return;
    event.preventDefault();
    (event as unknown as { returnValue: string }).returnValue = ""; // older browsers ask only when it is set
  });
  const ask = (event: Event) => {
    if (!active() || event.defaultPrevented) return;
    if (confirm(question)) leaving = true;
    else event.preventDefault();
  };
  document.addEventListener("click", (event) => {
    const link = (event.target as Element).closest?.("a[href]") as HTMLAnchorElement | null;
    const mouse = event as MouseEvent;
    // A link to a new tab, or to a place on this page, leaves nothing.
    if (!link || link.target === "_blank" || mouse.ctrlKey || mouse.metaKey || mouse.shiftKey || link.getAttribute("href")!.startsWith("#")) return;
    ask(event);
  });
  document.addEventListener("submit", (event) => {
    if ((event.target as HTMLFormElement).id !== "recorder") ask(event);
  });
}

type Lock = { release(): Promise<void> };
type WakeLocking = { wakeLock?: { request(type: "screen"): Promise<Lock> } };

/** Keeps the screen on until the answer is called; nothing where the browser has no Wake Lock. */
export function keepAwake(): () => void {
  const wakeLock = (navigator as WakeLocking).wakeLock;
  let lock: Lock | undefined;
  let held = true;
  const take = () => void wakeLock?.request("screen").then((taken) => (held ? (lock = taken) : void taken.release()), () => undefined);
  const again = () => document.visibilityState === "visible" && held && take();
  take();
  document.addEventListener("visibilitychange", again);
  return () => {
    held = false;
    document.removeEventListener("visibilitychange", again);
    void lock?.release().catch(() => undefined);
  };
}

/** The microphone picker: the inputs, listed once the browser names them (after permission), the choice remembered. */
export async function listMicrophones(select: HTMLSelectElement): Promise<void> {
  const inputs = (await navigator.mediaDevices.enumerateDevices()).filter((device) => device.kind === "audioinput" && device.label);
  if (inputs.length === 0) return;
  const chosen = localStorage.getItem(MIC_KEY) ?? select.value;
  const first = select.options[0]!;
  select.replaceChildren(first, ...inputs.filter((device) => device.deviceId !== "default").map((device) => new Option(device.label, device.deviceId)));
  select.value = inputs.some((device) => device.deviceId === chosen) ? chosen : "";
  select.closest<HTMLElement>("[data-mic-field]")!.hidden = false;
}

export const MIC_KEY = "verbatim-microphone";

/** mm:ss (h:mm:ss past an hour). */
export const clock = (seconds: number) => {
  const mm = `${String(Math.floor(seconds / 60) % 60).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
  return seconds >= 3600 ? `${Math.floor(seconds / 3600)}:${mm}` : mm;
};

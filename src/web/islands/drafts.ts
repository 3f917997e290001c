/**
 * The browser's side of draft meetings (web/draft-routes.tsx): create a draft, send numbered
 * parts, ask which arrived, finish. Network cuts and busy answers are retried with a growing
 * wait; a refusal (another 4xx) is final and reported.
 */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The sentence of the server's error page, for the user. */
function refusalOf(status: number, text: string): Refused {
  const page = new DOMParser().parseFromString(text, "text/html");
  return new Refused(status, page.querySelector("main p")?.textContent ?? String(status));
}
const refusal = async (response: Response) => refusalOf(response.status, await response.text());

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/** Runs `attempt` until it succeeds or is refused, waiting 1, 2, 4 … 30 s between tries. */
export async function withRetry<T>(attempt: () => Promise<T>, onWait: (seconds: number) => void = () => {}): Promise<T> {
  for (let wait = 1; ; wait = Math.min(30, wait * 2)) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof Refused && !retryable(error.status)) throw error;
      onWait(wait);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  }
}

async function call(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, { credentials: "same-origin", ...init });
  if (!response.ok) throw await refusal(response);
  return response;
}

/** A new draft: its id, the part size an upload slices by, and the least a part but the last holds. */
export async function createDraft(csrf: string, fields: Record<string, string>): Promise<{ id: string; part_bytes: number; min_part_bytes: number }> {
  const response = await call("/meetings/drafts", { method: "POST", headers: { "x-csrf-token": csrf }, body: new URLSearchParams(fields) });
  return (await response.json()) as { id: string; part_bytes: number; min_part_bytes: number };
}

export async function sendPart(csrf: string, draftId: string, index: number, part: Blob): Promise<void> {
  await call(`/meetings/${draftId}/parts/${index}`, { method: "PUT", headers: { "x-csrf-token": csrf, "content-type": "application/octet-stream" }, body: part });
}

/**
 * sendPart through XMLHttpRequest, whose upload events tell how many of the part's bytes left so
 * far (fetch cannot): `onBytes` hears them as they go. A cut is an Error (retried), a refusal a Refused.
 */
export function sendPartTracked(csrf: string, draftId: string, index: number, part: Blob, onBytes: (sent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", `/meetings/${draftId}/parts/${index}`);
    request.setRequestHeader("x-csrf-token", csrf);
    request.setRequestHeader("content-type", "application/octet-stream");
    request.upload.onprogress = (event) => onBytes(event.loaded);
    request.onload = () => (request.status < 300 ? resolve() : reject(refusalOf(request.status, request.responseText)));
    request.onerror = request.onabort = request.ontimeout = () => reject(new Error("network"));
    request.send(part);
  });
}

export async function receivedParts(draftId: string): Promise<{ status: string; received: number[]; bytes: number }> {
  return (await (await call(`/meetings/${draftId}/parts`, { method: "GET" })).json()) as { status: string; received: number[]; bytes: number };
}

/** Finishes the draft; answers the meeting page's URL. */
export async function finishDraft(csrf: string, draftId: string, expectedBytes?: number): Promise<string> {
  const body = new URLSearchParams(expectedBytes === undefined ? {} : { expected_bytes: String(expectedBytes) });
  const response = await call(`/meetings/${draftId}/finish`, { method: "POST", headers: { "x-csrf-token": csrf }, body });
  return response.url;
}

/** A response body larger than the reader's bound: the rest was not read, the connection is closed. */
export class BodyTooLarge extends Error {
  override readonly name = "BodyTooLarge";
}

/**
 * The response body as UTF-8 text, read up to `maxBytes`: a body that goes past it is cut off
 * there (the stream cancelled) and rejects with BodyTooLarge, so a peer cannot make the caller
 * hold more than the bound, whatever its Content-Length says.
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge(`The body is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

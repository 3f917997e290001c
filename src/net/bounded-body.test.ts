import { describe, expect, test } from "bun:test";
import { BodyTooLarge, readBoundedText } from "./bounded-body.ts";

describe("reading a body up to a bound", () => {
  test("a body within the bound is read whole, UTF-8 across chunks", async () => {
    const bytes = new TextEncoder().encode("été");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 2));
        controller.enqueue(bytes.slice(2));
        controller.close();
      },
    });
    expect(await readBoundedText(new Response(body), 5)).toBe("été");
  });

  test("a body that never ends is cut off past the bound and its stream cancelled", async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readBoundedText(new Response(endless), 64 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(80);
  });
});

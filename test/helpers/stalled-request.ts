/**
 * Sends a request's head and the start of its body over a raw socket, then nothing more: what a
 * client whose body never ends does. Returns what the server answered and when (ms), once `complete`
 * says the answer is whole, the server closes the socket, or 10 s pass.
 */
export async function stalledRequest(
  serverUrl: string,
  head: string,
  start: string,
  complete: (reply: string) => boolean = (reply) => reply.includes("\r\n\r\n") && /"request_id"/.test(reply),
): Promise<{ reply: string; afterMs: number }> {
  const url = new URL(serverUrl);
  let reply = "";
  const started = Date.now();
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  const socket = await Bun.connect({
    hostname: url.hostname,
    port: Number(url.port),
    socket: {
      data(_socket, data) {
        reply += new TextDecoder().decode(data);
        if (complete(reply)) closed();
      },
      close() {
        closed();
      },
    },
  });
  socket.write(`${head.replace("{host}", url.host)}\r\n${start}`);
  await Promise.race([done, Bun.sleep(10_000)]);
  socket.end();
  return { reply, afterMs: Date.now() - started };
}

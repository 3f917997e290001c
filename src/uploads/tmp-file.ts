import { randomBytes } from "node:crypto";
import { mkdir, open, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

/** Bytes gathered before one writev; one such write is in flight while the next batch gathers. */
const BATCH_BYTES = 1024 * 1024;

/**
 * A new file in a directory, written from a stream of chunks with bounded memory: `write` only
 * queues a view of the chunk, and `drain` (awaited after each incoming chunk) starts a writev once
 * a batch is full, waiting for the previous one first. So at most two batches (~2 MiB) are held,
 * and a slow disk slows the reader, which slows the socket.
 *
 * The queued views must not be reused by their producer until written: request-body chunks are
 * fresh buffers, so they are not.
 */
export class TmpFile {
  readonly path: string;
  private handle: FileHandle | undefined;
  private readonly opening: Promise<FileHandle>;
  private inflight: Promise<unknown> | undefined;
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private closed = false;

  constructor(dir: string) {
    this.path = join(dir, `upload-${randomBytes(12).toString("hex")}.part`);
    this.opening = mkdir(dir, { recursive: true }).then(() => open(this.path, "wx", 0o600));
    // discard() observes a failed open; keep it from being reported as unhandled meanwhile.
    this.opening.catch(() => {});
  }

  write(bytes: Uint8Array): void {
    this.batch.push(bytes);
    this.batchBytes += bytes.byteLength;
  }

  /** Applies backpressure: resolves once the queue is below a batch, or a batch is on its way. */
  async drain(): Promise<void> {
    this.handle ??= await this.opening;
    if (this.batchBytes < BATCH_BYTES) return;
    await this.inflight;
    const writing = writeAll(this.handle, this.batch, this.batchBytes);
    // Awaited by the next drain, close or discard; until then a failure must not count as unhandled.
    writing.catch(() => {});
    this.inflight = writing;
    this.batch = [];
    this.batchBytes = 0;
  }

  /** Writes what is queued and closes the file, which stays in place. */
  async close(): Promise<void> {
    const handle = (this.handle ??= await this.opening);
    await this.inflight;
    if (this.batch.length > 0) await writeAll(handle, this.batch, this.batchBytes);
    this.batch = [];
    this.closed = true;
    await handle.close();
  }

  /** Closes and deletes the file whatever state it is in; never throws. */
  async discard(): Promise<void> {
    this.batch = [];
    const handle = this.handle ?? (await this.opening.catch(() => undefined));
    await this.inflight?.catch(() => {});
    if (handle && !this.closed) await handle.close().catch(() => {});
    this.closed = true;
    await unlink(this.path).catch(() => {});
  }
}

/** writev, coalescing many tiny pieces (a trickling client) and finishing a short write. */
async function writeAll(handle: FileHandle, pieces: Uint8Array[], total: number): Promise<void> {
  let buffers = pieces.length > 64 ? [Buffer.concat(pieces, total)] : pieces;
  let { bytesWritten } = await handle.writev(buffers);
  while (bytesWritten < total) {
    const rest = Buffer.concat(buffers).subarray(bytesWritten);
    buffers = [rest];
    total = rest.length;
    ({ bytesWritten } = await handle.writev(buffers));
    if (bytesWritten === 0) throw new Error(`Writing an upload made no progress (${rest.length} bytes left).`);
  }
}

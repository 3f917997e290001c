import { ApiError } from "../errors/api-error.ts";
import { parsePartHeaders, type PartHeaders } from "./headers.ts";

/** What the parser reports while it is fed chunks. */
export interface PartSink {
  /**
   * A part begins. A promise pauses the parser until it settles: the rest of the chunk (and the
   * caller's next read) waits for it, and a rejection ends the parse with it.
   */
  partBegin(headers: PartHeaders): void | Promise<void>;
  /** A piece of the current part's content: a view into the chunk that was pushed (not a copy). */
  partData(bytes: Uint8Array): void;
  partEnd(): void;
}

export const MAX_PART_HEADER_BYTES = 16 * 1024;
export const MAX_PREAMBLE_BYTES = 64 * 1024;
export const MAX_EPILOGUE_BYTES = 64 * 1024;
const MAX_TRANSPORT_PADDING = 256;

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

const enum State {
  Preamble,
  /** Just after a delimiter: "--" (close) or transport padding then CRLF. */
  AfterDelimiter,
  AfterDelimiterDash,
  AfterDelimiterPadding,
  AfterDelimiterCr,
  Headers,
  Body,
  Epilogue,
}

/**
 * A push parser for multipart/form-data (RFC 7578 / RFC 2046) over arbitrary chunks. It never
 * copies part content: partData gets subarrays of the pushed chunks. The only bytes it keeps
 * between chunks are a partial delimiter match (under 80 bytes) and one part's header block
 * (at most 16 KiB).
 *
 * Delimiter search uses Buffer.indexOf on each chunk; a delimiter split across chunks is caught
 * by keeping the chunk's tail when it is a prefix of the delimiter. Because a boundary cannot
 * contain CR, the delimiter "\r\n--boundary" has no self-overlap past its first byte, which
 * keeps the carry logic simple.
 */
export class MultipartParser {
  private readonly delimiter: Buffer;
  private state = State.Preamble;
  /** A proper prefix of the delimiter seen at the end of the previous chunk(s). */
  private carry: Buffer;
  private headerBlock: Buffer = CRLF;
  private padding = 0;
  private skipped = 0;
  /** What the sink's partBegin asked the parser to wait for, taken by `parse`. */
  private paused: Promise<void> | undefined;

  constructor(
    boundary: string,
    private readonly sink: PartSink,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
    // The first delimiter may open the body without a CRLF before it: pretend one was there.
    this.carry = CRLF;
  }

  get done(): boolean {
    return this.state === State.Epilogue;
  }

  /** Parses a chunk; a promise when a part's beginning paused it (PartSink.partBegin): await it before pushing more. */
  push(chunk: Uint8Array): void | Promise<void> {
    return this.parse(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), 0);
  }

  private parse(buf: Buffer, from: number): void | Promise<void> {
    let pos = from;
    while (pos < buf.length) {
      switch (this.state) {
        case State.Preamble:
        case State.Body:
          pos = this.scan(buf, pos);
          break;
        case State.AfterDelimiter: {
          const c = buf[pos++]!;
          if (c === DASH) this.state = State.AfterDelimiterDash;
          else if (c === CR) this.state = State.AfterDelimiterCr;
          else if (c === 0x20 || c === 0x09) {
            this.padding = 1;
            this.state = State.AfterDelimiterPadding;
          } else throw malformed("A multipart delimiter is followed by garbage.");
          break;
        }
        case State.AfterDelimiterDash:
          if (buf[pos++] !== DASH) throw malformed("A multipart delimiter is followed by garbage.");
          this.state = State.Epilogue;
          this.skipped = 0;
          break;
        case State.AfterDelimiterPadding: {
          const c = buf[pos++]!;
          if (c === CR) this.state = State.AfterDelimiterCr;
          else if ((c !== 0x20 && c !== 0x09) || ++this.padding > MAX_TRANSPORT_PADDING) {
            throw malformed("A multipart delimiter is followed by garbage.");
          }
          break;
        }
        case State.AfterDelimiterCr:
          if (buf[pos++] !== LF) throw malformed("A multipart delimiter line does not end in CRLF.");
          this.state = State.Headers;
          this.headerBlock = CRLF;
          break;
        case State.Headers: {
          pos = this.headers(buf, pos);
          const paused = this.paused;
          if (paused) {
            this.paused = undefined;
            const at = pos;
            return paused.then(() => this.parse(buf, at));
          }
          break;
        }
        case State.Epilogue:
          this.skipped += buf.length - pos;
          if (this.skipped > MAX_EPILOGUE_BYTES) throw malformed("The multipart body goes on after its closing boundary.");
          pos = buf.length;
          break;
      }
    }
  }

  /** The body ended: it must have ended after the closing delimiter. */
  finish(): void {
    if (this.state !== State.Epilogue) {
      throw malformed(
        this.state === State.Preamble && this.skipped === 0
          ? "The multipart body is empty or has no boundary line."
          : "The multipart body ended before its closing boundary.",
      );
    }
  }

  /** Preamble or part content: emit (or skip) bytes up to the next delimiter. */
  private scan(buf: Buffer, pos: number): number {
    const delimiter = this.delimiter;
    if (this.carry.length > 0) {
      const carried = this.carry.length;
      const want = delimiter.length - carried;
      const have = Math.min(want, buf.length - pos);
      if (buf.compare(delimiter, carried, carried + have, pos, pos + have) === 0) {
        if (have === want) {
          this.carry = Buffer.alloc(0);
          this.delimiterFound();
          return pos + have;
        }
        this.carry = Buffer.concat([this.carry, buf.subarray(pos, pos + have)]);
        return buf.length;
      }
      // Not a delimiter after all. A boundary has no CR, so none starts inside the carry either.
      const carry = this.carry;
      this.carry = Buffer.alloc(0);
      this.content(carry);
    }
    const index = buf.indexOf(delimiter, pos);
    if (index >= 0) {
      if (index > pos) this.content(buf.subarray(pos, index));
      this.delimiterFound();
      return index + delimiter.length;
    }
    // Keep a tail that may be the start of a delimiter completed by the next chunk.
    let keep = buf.length;
    for (let i = Math.max(pos, buf.length - delimiter.length + 1); i < buf.length; i++) {
      if (buf[i] === CR && buf.compare(delimiter, 0, buf.length - i, i, buf.length) === 0) {
        keep = i;
        break;
      }
    }
    if (keep > pos) this.content(buf.subarray(pos, keep));
    if (keep < buf.length) this.carry = Buffer.from(buf.subarray(keep));
    return buf.length;
  }

  private content(bytes: Buffer): void {
    if (this.state === State.Body) {
      this.sink.partData(bytes);
    } else {
      this.skipped += bytes.length;
      if (this.skipped > MAX_PREAMBLE_BYTES) throw malformed("The multipart body does not start with its boundary.");
    }
  }

  private delimiterFound(): void {
    if (this.state === State.Body) this.sink.partEnd();
    this.state = State.AfterDelimiter;
  }

  private headers(buf: Buffer, pos: number): number {
    const before = this.headerBlock.length;
    const room = MAX_PART_HEADER_BYTES + HEADER_END.length - before;
    const take = buf.subarray(pos, pos + room);
    this.headerBlock = Buffer.concat([this.headerBlock, take]);
    const end = this.headerBlock.indexOf(HEADER_END, Math.max(0, before - HEADER_END.length + 1));
    if (end < 0) {
      if (this.headerBlock.length >= MAX_PART_HEADER_BYTES + HEADER_END.length) {
        throw malformed(`A multipart part's headers are longer than ${MAX_PART_HEADER_BYTES} bytes.`);
      }
      return pos + take.length;
    }
    // The block starts with the delimiter line's CRLF, so a part without headers ends at index 0.
    const headers = parsePartHeaders(end > CRLF.length ? this.headerBlock.subarray(CRLF.length, end) : new Uint8Array(0));
    this.headerBlock = CRLF;
    this.state = State.Body;
    this.paused = this.sink.partBegin(headers) ?? undefined;
    return pos + (end + HEADER_END.length - before);
  }
}

function malformed(detail: string): ApiError {
  return new ApiError("malformed_body", detail);
}

export interface RequestLogEntry {
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  credential: string | null;
}

export interface LogSink {
  write(line: string): void;
  flush(): void | Promise<void>;
}

/**
 * JSON-lines request log. Lines are buffered and written in batches: a write per request would
 * cost more than the request itself under load.
 */
export class RequestLog {
  private buffer: string[] = [];
  private bytes = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly sink: LogSink,
    private readonly flushIntervalMs = 200,
    private readonly maxBufferedBytes = 64 * 1024,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => this.flush(), this.flushIntervalMs);
    this.timer.unref?.();
  }

  record(entry: RequestLogEntry, time = Date.now()): void {
    const line = JSON.stringify({ time: new Date(time).toISOString(), level: "info", msg: "request", ...entry }) + "\n";
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes >= this.maxBufferedBytes) this.flush();
  }

  flush(): void | Promise<void> {
    if (!this.buffer.length) return;
    this.sink.write(this.buffer.join(""));
    this.buffer = [];
    this.bytes = 0;
    return this.sink.flush();
  }

  /** Stops the timer and writes out what is buffered: the last requests before a shutdown count too. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

export function stdoutSink(): LogSink {
  const writer = Bun.stdout.writer();
  return {
    write: (line) => void writer.write(line),
    flush: async () => {
      await writer.flush();
    },
  };
}

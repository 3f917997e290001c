import { join } from "node:path";
import type { DeliveryCounters } from "./dispatcher.ts";
import type { DeliveryThreadConfig, FromDeliveryThread, ToDeliveryThread } from "./thread-messages.ts";

/**
 * Where the thread's code is: beside this file from source; in the compiled executable, the second
 * entry point of the build (package.json "build"), named by its path from src/ as Bun resolves
 * worker entry points inside the executable.
 */
function threadEntry(): string {
  if (Bun.main.startsWith("/$bunfs/")) return "./webhooks/delivery-thread.ts";
  return join(import.meta.dir, "delivery-thread.ts");
}

/**
 * The API side of the delivery thread: starts it, tells it when to look again or to send a ping
 * now, relays its log lines, keeps its latest counters (for metrics), and stops it. Deliveries
 * live in the database, so the two threads share nothing else: a delivery the thread had in
 * flight when the process died is due again at the next start (SQLite), or once its claim's
 * lease runs out (PostgreSQL, where another node may take it).
 */
export class DeliveryThread {
  counters: DeliveryCounters = { succeeded: 0, failedAttempts: 0, failed: 0, endpointsDisabled: 0 };
  private worker: Worker | undefined;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly config: DeliveryThreadConfig,
    private readonly log: (line: string) => void,
  ) {}

  /** Resolves once the thread has opened the database and runs. */
  start(): Promise<void> {
    const worker = new Worker(threadEntry());
    this.worker = worker;
    const started = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FromDeliveryThread>) => {
        const message = event.data;
        if (message.type === "started") resolve();
        else if (message.type === "log") this.log(message.line);
        else if (message.type === "counters") this.counters = message.counters;
        else if (message.type === "stopped") this.onStopped?.();
      };
      worker.onerror = (event) => {
        this.log(`webhooks: the delivery thread failed: ${event.message}`);
        reject(new Error(event.message));
      };
    });
    this.post({ type: "start", config: this.config });
    return started;
  }

  wake(): void {
    this.post({ type: "wake" });
  }

  sendNow(deliveryId: string): void {
    this.post({ type: "send_now", deliveryId });
  }

  /** Lets deliveries in flight finish (each has its deadline), then ends the thread. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (!this.worker) return resolve();
      const timeout = setTimeout(finish, 15_000);
      const worker = this.worker;
      function finish() {
        clearTimeout(timeout);
        worker.terminate();
        resolve();
      }
      this.onStopped = finish;
      this.post({ type: "stop" });
    });
    return this.stopped;
  }

  private onStopped: (() => void) | undefined;

  private post(message: ToDeliveryThread): void {
    this.worker?.postMessage(message);
  }
}

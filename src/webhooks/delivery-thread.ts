/**
 * The webhook delivery thread (a Worker of the API process): its own database connection (a
 * SQLite connection, or a small PostgreSQL pool), the dispatcher, and every TLS handshake and
 * signature, so a storm of deliveries never holds the API's event loop. See delivery-host.ts for
 * the API side.
 */
import { openConn, type DbConn } from "../db/conn.ts";
import { PgConn } from "../db/pg-conn.ts";
import { systemClock } from "../lib/time.ts";
import { parseEgressAllow } from "../net/egress.ts";
import { trustedCertificates } from "../net/trust.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import { disabledEndpointNotifier } from "./notify.ts";
import type { FromDeliveryThread, ToDeliveryThread } from "./thread-messages.ts";

declare const self: Worker;

const send = (message: FromDeliveryThread) => self.postMessage(message);
let dispatcher: WebhookDispatcher | undefined;
let counterTimer: ReturnType<typeof setInterval> | undefined;
let closeDatabase: (() => Promise<void>) | undefined;

/**
 * The thread's own connection: a Worker shares no objects with the API's thread. Four pooled
 * connections on PostgreSQL: the fan-out's transaction and the attempts' records are short, and
 * the sends themselves hold none.
 */
function openThreadConn(config: { databasePath: string; databaseUrl?: string }): DbConn {
  if (config.databaseUrl) return new PgConn(config.databaseUrl, { poolSize: 4, applicationName: "verbatim-webhooks" });
  return openConn(config.databasePath);
}

self.onmessage = async (event: MessageEvent<ToDeliveryThread>) => {
  const message = event.data;
  switch (message.type) {
    case "start": {
      const { config } = message;
      const conn = openThreadConn(config);
      closeDatabase = () => conn.close();
      const log = (line: string) => send({ type: "log", line });
      dispatcher = new WebhookDispatcher({
        conn,
        owner: config.owner,
        previousOwner: config.previousOwner,
        clock: systemClock,
        send: { policy: parseEgressAllow(config.egressAllow), ca: trustedCertificates(config.caFile) },
        timeoutMs: config.timeoutMs,
        maxInFlight: config.maxInFlight,
        maxInFlightPerEndpoint: config.maxInFlightPerEndpoint,
        notifyDisabled: disabledEndpointNotifier({ conn, smtpUrl: config.smtp.url, from: config.smtp.from, warn: log }),
        log,
      });
      dispatcher.start();
      counterTimer = setInterval(() => send({ type: "counters", counters: { ...dispatcher!.counters } }), 5000);
      send({ type: "started" });
      break;
    }
    case "wake":
      void dispatcher?.tick();
      break;
    case "send_now":
      void dispatcher?.sendNow(message.deliveryId);
      break;
    case "stop":
      if (counterTimer) clearInterval(counterTimer);
      await dispatcher?.stop();
      await closeDatabase?.();
      send({ type: "stopped" });
      break;
  }
};

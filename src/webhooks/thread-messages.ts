import type { DeliveryCounters } from "./dispatcher.ts";

/** What the delivery thread needs: plain data, as it crosses to another thread. */
export interface DeliveryThreadConfig {
  databasePath: string;
  /** The --egress-allow text; the thread builds its own policy from it. */
  egressAllow: string;
  caFile: string | null;
  smtp: { url: string | null; from: string };
  timeoutMs?: number;
  maxInFlight?: number;
  maxInFlightPerEndpoint?: number;
}

export type ToDeliveryThread =
  | { type: "start"; config: DeliveryThreadConfig }
  | { type: "wake" }
  | { type: "send_now"; deliveryId: string }
  | { type: "stop" };

export type FromDeliveryThread =
  | { type: "started" }
  | { type: "log"; line: string }
  | { type: "counters"; counters: DeliveryCounters }
  | { type: "stopped" };

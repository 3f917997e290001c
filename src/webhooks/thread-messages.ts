import type { DeliveryCounters } from "./dispatcher.ts";

/** What the delivery thread needs: plain data, as it crosses to another thread. */
export interface DeliveryThreadConfig {
  /** The SQLite database, when the service runs on one (no `databaseUrl`). */
  databasePath: string;
  /** The service's PostgreSQL (--database-url): the thread opens a small pool of its own on it. */
  databaseUrl?: string;
  /** The name its claims on deliveries carry (the node's id), and the one this data dir's previous run used, whose claims are dropped at start. */
  owner?: string;
  previousOwner?: string | null;
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

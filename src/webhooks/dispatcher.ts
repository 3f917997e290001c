import type { Conn } from "../db/conn.ts";
import { eventPayload } from "../events/store.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { SERVICE_VERSION } from "../lib/version.ts";
import {
  claimDelivery,
  claimDueDeliveries,
  failDelivery,
  recordAttempt,
  releaseAllDeliveryLeases,
  releaseDeliveries,
  type DeliveryRow,
} from "./delivery-store.ts";
import { enabledEndpointIds, findEndpoint, type EndpointRow } from "./endpoint-store.ts";
import { fanOutEvents } from "./fanout.ts";
import { signingSecrets } from "./secrets.ts";
import { sendDelivery, type AttemptOutcome, type SendOptions } from "./send.ts";
import { signatureHeader } from "./signature.ts";

/** Waits before the 2nd to the 8th attempt (SPEC 6): 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h. */
export const RETRY_DELAYS_MS = [1, 5, 30, 120, 360, 720, 1440].map((minutes) => minutes * 60_000);
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Consecutive failed attempts that disable an endpoint (SPEC 6). */
export const DISABLE_AFTER_FAILURES = 15;
const FAN_OUT_BATCH = 10;
/**
 * How long a claimed attempt is this dispatcher's alone, at least: far longer than a send (its
 * deadline is 10 s) and its record take, so only a dispatcher that died (or stalled) loses one.
 */
export const DELIVERY_LEASE_MS = 60_000;
export const USER_AGENT = `Verbatim-Webhooks/1.0 (verbatim ${SERVICE_VERSION})`;

/** Delivery outcomes since start, for the metrics endpoint. */
export interface DeliveryCounters {
  succeeded: number;
  failedAttempts: number;
  failed: number;
  endpointsDisabled: number;
}

export interface DispatcherOptions {
  /** The delivery thread's own connection. */
  conn: Conn;
  /** This dispatcher's name on the deliveries it claims (the node's id); a random one without. */
  owner?: string;
  /** The name this node's previous run on the same data dir used (surely ended): its claims are dropped at start. */
  previousOwner?: string | null;
  clock: Clock;
  send: Omit<SendOptions, "timeoutMs">;
  /** The receiver must answer within this (SPEC: 10 s). */
  timeoutMs?: number;
  /** Deliveries in flight at once, overall and per endpoint: a slow receiver holds only its own share. */
  maxInFlight?: number;
  maxInFlightPerEndpoint?: number;
  /** Tells the endpoint's owner it was disabled (email, else a log line). */
  notifyDisabled(endpoint: EndpointRow): Promise<void>;
  log(line: string): void;
}

/**
 * Sends webhook deliveries from the retry table, in the API process, without blocking requests:
 * each tick fans new events out into deliveries, then claims the due ones (oldest first) up to
 * the concurrency bounds and starts each in its own promise with a deadline. Outcomes are written
 * back with the next attempt's time, so a restart resumes exactly: a delivery due (or in flight
 * when the process died) is sent after it. Several dispatchers (one per node, on PostgreSQL) may
 * share the table: each attempt is sent by the one that claimed it (a lease on the row), and one
 * killed mid-delivery leaves it to another once the lease runs out. At least once: receivers
 * deduplicate on Verbatim-Event-Id.
 */
export class WebhookDispatcher {
  readonly counters: DeliveryCounters = { succeeded: 0, failedAttempts: 0, failed: 0, endpointsDisabled: 0 };
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  /** This dispatcher's name on the deliveries it claims (webhook_deliveries.lease_owner). */
  private readonly owner: string;
  /** Set by start(): the first tick waits for the claims a dead process left to be dropped. */
  private started: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private rotation = 0;
  private tickSoon = false;
  /** send-now calls reading their delivery: idle() waits for them too. */
  private starting = 0;
  private ticking = false;
  private tickAgain = false;
  private stopped = false;

  constructor(private readonly o: DispatcherOptions) {
    this.owner = o.owner ?? randomId("whdisp");
  }

  start(intervalMs = 1000): void {
    this.started = releaseAllDeliveryLeases(this.o.conn, this.o.previousOwner ?? null).catch((error) => this.o.log(`webhooks: could not release old claims: ${(error as Error).message}`));
    this.timer = setInterval(() => void this.tick(), intervalMs);
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  /** Resolves when no delivery is in flight and none is about to start. */
  async idle(): Promise<void> {
    while (this.inFlight.size || this.tickSoon || this.starting || this.ticking) {
      if (this.inFlight.size) await Promise.allSettled([...this.inFlight.values()]);
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Fans out new events and starts the due deliveries; safe to call at any time. A call while a
   * tick is reading the database is not lost: that tick runs once more when it is done.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    try {
      await this.started;
      do {
        this.tickAgain = false;
        await this.tickOnce();
      } while (this.tickAgain && !this.stopped);
    } finally {
      this.ticking = false;
    }
  }

  private async tickOnce(): Promise<void> {
    try {
      const now = this.o.clock.now();
      // One batch of new events per tick, so a burst of events never holds the event loop
      // for long; a full batch means more are waiting: the next tick comes at once.
      const fanned = await fanOutEvents(this.o.conn, now, FAN_OUT_BATCH);
      if (fanned === FAN_OUT_BATCH) setTimeout(() => void this.tick(), 0);
      await this.beginClaimed(await this.due(now));
    } catch (error) {
      this.o.log(`webhooks: dispatch failed: ${(error as Error).message}`);
    }
  }

  /**
   * Sends this delivery now (the endpoint's test ping) when the bounds leave room for it: a slot
   * overall and one of its endpoint's. Otherwise it stays queued, due, and goes when a slot frees
   * (each finished delivery starts a tick), so 30 pings never open 30 connections.
   */
  async sendNow(deliveryId: string): Promise<void> {
    if (this.stopped || this.inFlight.has(deliveryId)) return;
    if (this.inFlight.size >= this.maxInFlight) return;
    this.starting++;
    try {
      const now = this.o.clock.now();
      // Claimed only if due and nobody sends it already (this node's tick, or another node).
      const row = await claimDelivery(this.o.conn, { deliveryId, owner: this.owner, now, leaseUntil: now + this.leaseMs });
      if (row) await this.beginClaimed([row]);
    } catch (error) {
      this.o.log(`webhooks: could not send ${deliveryId} now: ${(error as Error).message}`);
    } finally {
      this.starting--;
    }
  }

  /**
   * Starts each claimed delivery unless the bounds leave no room: checked at the moment it
   * starts, since a tick and a send-now may both have claimed while awaiting the database. One
   * left out is released, due again at once for the next tick.
   */
  private async beginClaimed(claimed: DeliveryRow[]): Promise<void> {
    const left: string[] = [];
    for (const delivery of claimed) {
      const room =
        !this.stopped &&
        !this.inFlight.has(delivery.id) &&
        this.inFlight.size < this.maxInFlight &&
        (this.perEndpoint.get(delivery.endpointId) ?? 0) < this.maxInFlightPerEndpoint;
      if (room) this.begin(delivery);
      else if (!this.inFlight.has(delivery.id)) left.push(delivery.id);
    }
    await releaseDeliveries(this.o.conn, left, this.owner);
  }

  /** A claim outlives the send's deadline with a wide margin. */
  private get leaseMs(): number {
    return Math.max(DELIVERY_LEASE_MS, 3 * (this.o.timeoutMs ?? 10_000));
  }

  private get maxInFlight(): number {
    return this.o.maxInFlight ?? 8;
  }

  private get maxInFlightPerEndpoint(): number {
    return this.o.maxInFlightPerEndpoint ?? 2;
  }

  /**
   * Claims the due deliveries to start now: endpoint by endpoint (starting after the one served
   * first last time, so none is always last), each up to its share of slots, oldest due first, by
   * index. Those in flight here are claimed already, so they are not found again.
   */
  private async due(now: number): Promise<DeliveryRow[]> {
    let room = this.maxInFlight - this.inFlight.size;
    if (room <= 0) return [];
    const perEndpointMax = this.maxInFlightPerEndpoint;
    const endpoints = await enabledEndpointIds(this.o.conn);
    const start = endpoints.length ? this.rotation++ % endpoints.length : 0;
    const picked: DeliveryRow[] = [];
    for (let i = 0; i < endpoints.length && room > 0; i++) {
      const endpointId = endpoints[(start + i) % endpoints.length]!;
      const busy = this.perEndpoint.get(endpointId) ?? 0;
      const free = Math.min(room, perEndpointMax - busy);
      if (free <= 0) continue;
      const rows = await claimDueDeliveries(this.o.conn, { endpointId, owner: this.owner, now, leaseUntil: now + this.leaseMs, limit: free });
      picked.push(...rows);
      room -= rows.length;
    }
    return picked;
  }

  private begin(delivery: DeliveryRow): void {
    this.perEndpoint.set(delivery.endpointId, (this.perEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const run = this.deliver(delivery)
      .catch((error) => this.o.log(`webhooks: delivery ${delivery.id} stopped on an unexpected error: ${(error as Error).message}`))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        const left = (this.perEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (left > 0) this.perEndpoint.set(delivery.endpointId, left);
        else this.perEndpoint.delete(delivery.endpointId);
        // A freed slot lets a waiting delivery go now rather than on the next timer tick; the
        // completions of one turn of the event loop share one tick.
        if (!this.stopped && !this.tickSoon) {
          this.tickSoon = true;
          setImmediate(() => {
            this.tickSoon = false;
            void this.tick();
          });
        }
      });
    this.inFlight.set(delivery.id, run);
  }

  private async deliver(delivery: DeliveryRow): Promise<void> {
    const { conn, clock } = this.o;
    const endpoint = await findEndpoint(conn, delivery.endpointId);
    if (!endpoint) return; // deleted meanwhile, with its deliveries
    const body = await eventPayload(conn, delivery.eventId);
    if (body === undefined) {
      // Its meeting was deleted: the event's content went with it and is never sent.
      await failDelivery(conn, delivery.id, this.owner, "The event was deleted with its meeting before it could be delivered.");
      return;
    }
    const now = clock.now();
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": USER_AGENT,
      "Verbatim-Event-Id": delivery.eventId,
      "Verbatim-Event-Type": delivery.eventType,
      "Verbatim-Delivery-Id": delivery.id,
      "Verbatim-Signature": signatureHeader(signingSecrets(endpoint, now), Math.floor(now / 1000), body),
    };
    const outcome = await sendDelivery(endpoint.url, body, headers, { ...this.o.send, timeoutMs: this.o.timeoutMs ?? 10_000 });
    await this.record(delivery, endpoint, outcome);
  }

  /** The attempt's outcome, the delivery's next state and the endpoint's failure count, in one transaction. */
  private async record(delivery: DeliveryRow, endpoint: EndpointRow, outcome: AttemptOutcome): Promise<void> {
    const now = this.o.clock.now();
    const attempts = delivery.attempts + 1;
    const { recorded, disabled } = await recordAttempt(this.o.conn, {
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      owner: this.owner,
      now,
      attempts,
      ok: outcome.ok,
      responseStatus: outcome.status,
      responseBodyExcerpt: outcome.bodyExcerpt,
      durationMs: outcome.durationMs,
      error: outcome.error,
      retryAt: attempts >= MAX_ATTEMPTS ? null : now + RETRY_DELAYS_MS[attempts - 1]!,
      disableAfter: DISABLE_AFTER_FAILURES,
    });
    if (!recorded) {
      this.o.log(`webhooks: delivery ${delivery.id}'s attempt was not recorded: its claim ran out and another dispatcher took it over`);
      return;
    }
    if (outcome.ok) {
      this.counters.succeeded++;
      return;
    }
    this.counters.failedAttempts++;
    if (attempts >= MAX_ATTEMPTS) this.counters.failed++;
    if (disabled) {
      this.counters.endpointsDisabled++;
      this.o.log(`webhooks: endpoint ${endpoint.id} disabled after ${DISABLE_AFTER_FAILURES} consecutive failed deliveries`);
      void this.o.notifyDisabled(endpoint).catch((error) => this.o.log(`webhooks: could not notify the owner of ${endpoint.id}: ${(error as Error).message}`));
    }
  }
}

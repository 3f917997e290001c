/**
 * The single sign-ons in flight, between the redirect to the provider and its answer: in memory,
 * bounded in age, per client and in all.
 *
 * Starting a sign-in needs no credential, so anyone can add entries. The bounds are chosen so
 * that one client cannot push out another's sign-in:
 * - an entry older than its time to live is gone first (at every start, and refused at its end);
 * - a client (the caller's address key: one IPv4 address, one IPv6 /64) holds at most `perClient`
 *   entries: its next start drops its own oldest, nobody else's;
 * - when all clients together hold `total`, a start drops the oldest entry of the client holding
 *   the most. A person with one sign-in in flight loses it only if every client holds just one,
 *   that is when `total` distinct addresses are starting sign-ins at once.
 */
export interface PendingLimits {
  /** How long a sign-in may take, from the start to the provider's answer. */
  ttlMs: number;
  perClient: number;
  total: number;
}

interface Entry<T> {
  value: T;
  clientKey: string;
  expiresAt: number;
}

export class PendingSignIns<T> {
  /** By state, in the order they were added: with one time to live, also the order they expire. */
  private readonly byState = new Map<string, Entry<T>>();
  /** Each client's states, oldest first. */
  private readonly byClient = new Map<string, Set<string>>();

  constructor(private readonly limits: PendingLimits) {}

  get size(): number {
    return this.byState.size;
  }

  /** Holds `value` under `state` for the client until it is taken or its time is up. */
  add(state: string, clientKey: string, value: T, now: number): void {
    for (const [oldest, entry] of this.byState) {
      if (entry.expiresAt > now) break;
      this.remove(oldest);
    }
    const own = this.byClient.get(clientKey);
    if (own && own.size >= this.limits.perClient) this.remove(own.values().next().value!);
    if (this.byState.size >= this.limits.total) this.remove(this.oldestOfHeaviestClient());
    this.byState.set(state, { value, clientKey, expiresAt: now + this.limits.ttlMs });
    const states = this.byClient.get(clientKey) ?? new Set<string>();
    states.add(state);
    this.byClient.set(clientKey, states);
  }

  /** The value held under `state`, once: it is removed whatever the answer; undefined when unknown or expired. */
  take(state: string, now: number): T | undefined {
    const entry = this.byState.get(state);
    if (!entry) return undefined;
    this.remove(state);
    return entry.expiresAt > now ? entry.value : undefined;
  }

  private oldestOfHeaviestClient(): string {
    let heaviest: Set<string> | undefined;
    for (const states of this.byClient.values()) if (!heaviest || states.size > heaviest.size) heaviest = states;
    return heaviest!.values().next().value!;
  }

  private remove(state: string): void {
    const entry = this.byState.get(state);
    if (!entry) return;
    this.byState.delete(state);
    const states = this.byClient.get(entry.clientKey)!;
    states.delete(state);
    if (states.size === 0) this.byClient.delete(entry.clientKey);
  }
}

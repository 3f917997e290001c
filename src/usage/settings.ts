/** Plans' monthly allowances, unit prices and currency: the firm's chargeback terms, from configuration. */
export interface BillingSettings {
  currency: string;
  /** Monthly wallet per plan, in minor units. */
  allowances: Readonly<Record<string, number>>;
  rates: {
    /** Minor units per hour of audio transcribed. */
    transcriptionPerHour: number;
    /** Minor units per million tokens (prompt and completion) of the AI report. */
    reportPerMillionTokens: number;
    /** Minor units per million tokens of a document. */
    documentPerMillionTokens: number;
  };
  /**
   * The least an admitted operation reserves of the balance (minor units), whatever its estimate:
   * an operation whose size is not known yet (an audio_url before its download) still holds this.
   */
  holdPerOperation: number;
  /** How admission estimates an operation's cost before it runs (usage/estimate.ts). */
  estimates: {
    /** Tokens a report or document takes beyond its transcript: its instructions and its answer. */
    reportTokens: number;
  };
  /**
   * The web app's own monthly quotas per plan (SPEC 8 rule 5: API usage never consumes them, and
   * the web app never draws on the API wallet): minutes of audio processed and documents written.
   */
  webappQuotas: {
    audioMinutes: Readonly<Record<string, number>>;
    documents: Readonly<Record<string, number>>;
  };
}

export const DEFAULT_BILLING: BillingSettings = {
  currency: "EUR",
  allowances: { free: 500, standard: 5000, pro: 20000 },
  rates: { transcriptionPerHour: 60, reportPerMillionTokens: 200, documentPerMillionTokens: 200 },
  holdPerOperation: 5,
  estimates: { reportTokens: 3000 },
  webappQuotas: {
    audioMinutes: { free: 120, standard: 1200, pro: 6000 },
    documents: { free: 10, standard: 100, pro: 500 },
  },
};

export const ALERT_THRESHOLDS_PERCENT = [50, 80, 100] as const;
export const SPEND_CAP_THRESHOLDS_PERCENT = [80, 100] as const;

/** "2026-11" for a time, in UTC. */
export function periodOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** The first millisecond of a period and of the next one. */
export function periodBounds(period: string): { start: number; end: number } {
  const [year, month] = period.split("-").map(Number) as [number, number];
  return { start: Date.UTC(year, month - 1, 1), end: Date.UTC(year, month, 1) };
}

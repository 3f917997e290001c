import { z } from "zod";
import { pageSchema, paginationQuery } from "../http/pagination.ts";

export const ledgerQuery = z.object({
  ...paginationQuery(20),
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "A period is a UTC month, YYYY-MM.")
    .optional(),
});

const money = z.number().int().meta({ description: "Minor units of the currency (cents)." });

export const usageSchema = z.object({
  object: z.literal("usage"),
  period: z.string(),
  period_start: z.string(),
  period_end: z.string(),
  currency: z.string(),
  plan: z.string(),
  wallet: z.object({
    allowance: money,
    credits: money,
    used: money,
    remaining: money,
    reserved: money.meta({
      description:
        "Minor units the account's operations still queued or running hold until each ends (their expected cost); a new operation is admitted only when remaining plus on-demand remaining, less reserved, covers its own expected cost.",
    }),
  }),
  on_demand: z.object({ enabled: z.boolean(), spend_cap: money.nullable(), used: money, remaining: money.nullable(), written_off: money }),
  totals: z.object({
    operations: z.number().int(),
    audio_seconds: z.number().int(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    tokens: z.number().int(),
    cost: money,
  }),
  alert_thresholds_percent: z.array(z.number().int()),
  spend_cap_alert_thresholds_percent: z.array(z.number().int()),
  rates: z.object({ transcription_per_hour: money, report_per_million_tokens: money, document_per_million_tokens: money }),
});

export const ledgerLineSchema = z.object({
  id: z.string(),
  object: z.literal("ledger_line"),
  period: z.string(),
  operation: z.enum(["transcription", "report", "document"]),
  meeting_id: z.string().nullable(),
  job_id: z.string().nullable(),
  quantities: z.object({ audio_seconds: z.number().int(), prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
  model: z.string().nullable(),
  unit_rate: money,
  unit: z.enum(["per_hour_of_audio", "per_million_tokens"]),
  currency: z.string(),
  cost: money,
  paid: z.object({ wallet: money, on_demand: money, written_off: money }),
  payment: z.enum(["wallet", "on_demand", "written_off", "mixed", "free"]),
  created_at: z.string(),
});
export const ledgerPageSchema = pageSchema(ledgerLineSchema);

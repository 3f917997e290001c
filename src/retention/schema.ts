import { z } from "zod";

/** The longest a retention period may be: 100 years, in days. */
export const MAX_RETENTION_DAYS = 36500;

const days = (what: string) =>
  z
    .number()
    .int("A whole number of days.")
    .min(1, "At least 1 day.")
    .max(MAX_RETENTION_DAYS, `At most ${MAX_RETENTION_DAYS} days.`)
    .nullable()
    .meta({ description: `${what}, in days after the meeting's recorded_at (1 to ${MAX_RETENTION_DAYS}); null: never` });

/**
 * PUT /v1/retention: the whole policy (both fields, each null for off). When both are set, the
 * recording goes first: recording_delete_after_days is below delete_after_days.
 */
export const retentionPolicyBody = z
  .strictObject({
    delete_after_days: days("When the whole meeting (recording, transcript, report, documents) is deleted"),
    recording_delete_after_days: days("When only the recording and its decoded audio are deleted (transcript, report and documents kept)"),
  })
  .superRefine((value, ctx) => {
    const { delete_after_days: whole, recording_delete_after_days: recording } = value;
    if (whole !== null && recording !== null && recording >= whole) {
      ctx.addIssue({
        code: "custom",
        path: ["recording_delete_after_days"],
        message: "recording_delete_after_days must be below delete_after_days (the whole meeting goes then, recording included).",
        params: { code: "too_large" },
      });
    }
  });

export type RetentionPolicyInput = z.output<typeof retentionPolicyBody>;

export const retentionPolicySchema = z.object({
  object: z.literal("retention_policy"),
  delete_after_days: z.number().int().nullable(),
  recording_delete_after_days: z.number().int().nullable(),
  /** What the days count from. */
  basis: z.literal("recorded_at"),
  updated_at: z.string().nullable(),
});

import { z } from "zod";

export const FEEDBACK_TYPES = ["bug", "feature_request", "question", "feedback"] as const;

export const createFeedbackBody = z.strictObject({
  type: z.enum(FEEDBACK_TYPES).default("feedback"),
  message: z.string().trim().min(1).max(10_000),
  meeting_id: z.uuid().nullable().optional(),
});

export type CreateFeedback = z.output<typeof createFeedbackBody>;

export const feedbackSchema = z.object({
  id: z.string(),
  object: z.literal("feedback"),
  type: z.enum(FEEDBACK_TYPES),
  meeting_id: z.string().nullable(),
  message: z.string(),
  status: z.literal("received"),
  created_at: z.string(),
});

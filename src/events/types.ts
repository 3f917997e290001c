/** The event types of SPEC 6; recording and reading events is events/store.ts. */

export const EVENT_TYPES = [
  "transcription.completed",
  "transcription.failed",
  "processing.completed",
  "processing.failed",
  "document.generated",
  "document.failed",
  "usage.threshold_reached",
  "ping",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A meeting's AI report as stored (the meeting's `reports` row). */
export interface StoredReport {
  meetingId: string;
  title: string;
  language: string | null;
  markdown: string;
  structured: Record<string, unknown> | null;
  model: string | null;
  createdAt: number;
  updatedAt: number;
}

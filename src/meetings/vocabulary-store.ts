import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import type { LabelledSegment, StoredTranscript } from "../transcripts/types.ts";
import { whisperPrompt } from "../vocabulary/prompt.ts";
import { buildMatcher, replaceInWords, replaceVariants, type TimedText } from "../vocabulary/replace.ts";
import { glossaryOf } from "../vocabulary/store.ts";
import { meetings, transcriptCorrections, transcripts } from "./table.ts";

/**
 * The author of the corrections the service makes itself (the glossary's replacements): a user id
 * no account has (those are UUIDs), shown in the correction history as `author.id` "system" with
 * no email.
 */
export const SYSTEM_AUTHOR = "system";

/** A stored segment, with the timed words a transcript may keep beside its text. */
type StoredSegment = LabelledSegment & { words?: TimedText[] };

/**
 * Replaces the account glossary's spoken variants by their terms in the meeting's stored
 * transcript, each changed segment recorded as a correction by the system (its previous words
 * kept, so the history shows what was heard and what the glossary made of it). The one place the
 * replacement happens: every path that stores a transcript (the diarize step's, a text imported
 * in the web app or the API) calls it, inside its transaction, after the transcript is written.
 * Segment times do not move, and timed words a variant spans become one word from the first's
 * start to the last's end. Answers the segments as now stored when any changed, else null: the
 * caller then gives the report's step the same words (its input file is written apart).
 */
export async function applyVocabulary(tx: Queryable, meetingId: string, now: number): Promise<LabelledSegment[] | null> {
  const [meeting] = await tx.select({ userId: meetings.userId }).from(meetings).where(eq(meetings.id, meetingId)).limit(1);
  if (!meeting) return null;
  const matcher = buildMatcher(await glossaryOf(tx, meeting.userId));
  if (matcher.size === 0) return null;
  const [row] = await tx.select({ segments: transcripts.segments }).from(transcripts).where(eq(transcripts.meetingId, meetingId)).limit(1);
  if (!row) return null;
  const corrections: (typeof transcriptCorrections.$inferInsert)[] = [];
  const segments = (row.segments as StoredSegment[]).map((segment, index) => {
    const { text, replaced } = replaceVariants(segment.text, matcher);
    if (replaced === 0) return segment;
    corrections.push({ meetingId, segmentIndex: index, previousText: segment.text, text, authorUserId: SYSTEM_AUTHOR, createdAt: now });
    return segment.words ? { ...segment, text, words: replaceInWords(segment.words, matcher) } : { ...segment, text };
  });
  if (corrections.length === 0) return null;
  for (const correction of corrections) await tx.insert(transcriptCorrections).values(correction);
  await tx.update(transcripts).set({ segments }).where(eq(transcripts.meetingId, meetingId));
  return segments;
}

/** The transcript with the segments the glossary changed, or the same object when none did. */
export function asStored(transcript: StoredTranscript, changed: LabelledSegment[] | null): StoredTranscript {
  return changed ? { ...transcript, segments: changed } : transcript;
}

/** Whisper's initial prompt for a meeting: its own terms first, then its account's glossary. */
export function promptFor(c: Conn, meeting: { userId: string; vocabulary: string[] | null }): Promise<string | null> {
  return run(c, async (q) => whisperPrompt(meeting.vocabulary ?? [], (await glossaryOf(q, meeting.userId)).map((entry) => entry.term)));
}

import type { MeetingWorkspace } from "../../meetings/app.ts";
import type { TranscriptDocument } from "../../transcripts/app.ts";
import type { Translate } from "../i18n.ts";
import { CsrfField, type PageFrame } from "../layout.tsx";
import { playerTime } from "../pages/meeting.tsx";

/**
 * The transcript workspace of the meeting page (issue 25 item 4), rendered on the server: the
 * player (video when the recording has a picture), the speaker timeline, the search box its
 * script turns on, the transcript's lines with their speakers' colours, word timings and
 * correction history. islands/player.ts and islands/ws-workspace.ts enhance them.
 */

/** How many distinguishable speaker colours the palette has (app.css `.spk-0` … `.spk-7`); more speakers reuse them. */
const PALETTE = 8;

/** One correction of a line, as its history shows it. */
export interface LineCorrection {
  previousText: string;
  author: string | null;
  /** The glossary's own replacement (author "system"). */
  system: boolean;
  createdAt: string;
}

/** What the workspace adds to the meeting page's props. */
export interface WorkspaceProps extends MeetingWorkspace {
  /** Each corrected line's corrections, newest first. */
  history: Map<number, LineCorrection[]>;
}

/** Every speaker's colour class, by the order of the transcript's speakers (the same on every part of the page). */
export function speakerColours(labels: readonly string[]): (label: string) => string {
  const order = new Map([...labels].sort().map((label, i) => [label, i]));
  return (label) => `spk-${(order.get(label) ?? 0) % PALETTE}`;
}

/** The recording's player: a video when it has a picture, else audio. */
export function PlayerMedia({ base, video, t }: { base: string; video: boolean; t: Translate }) {
  return video ? (
    <video id="player" controls preload="metadata" playsinline src={`${base}/audio`} aria-label={t("ws.video")} />
  ) : (
    <audio id="player" controls preload="metadata" src={`${base}/audio`} />
  );
}

/** A run of consecutive lines of one speaker. */
interface Turn {
  speaker: string;
  name: string;
  index: number;
  start: number;
  end: number;
}

function turnsOf(transcript: TranscriptDocument): Turn[] {
  const turns: Turn[] = [];
  transcript.segments.forEach((segment, index) => {
    const last = turns.at(-1);
    if (last && last.speaker === segment.speaker) last.end = Math.max(last.end, segment.end);
    else turns.push({ speaker: segment.speaker, name: segment.speaker_name ?? segment.speaker, index, start: segment.start, end: segment.end });
  });
  return turns;
}

/**
 * Who speaks when, under the player: a lane per speaker, a bar per turn (consecutive lines of
 * one speaker), each a link to its first line (the script seeks the player there instead).
 * SVG geometry, no style attribute (CSP).
 */
export function SpeakerTimeline({ transcript, colour, t }: { transcript: TranscriptDocument; colour: (label: string) => string; t: Translate }) {
  const turns = turnsOf(transcript);
  if (turns.length === 0) return null;
  const lanes = [...new Set(turns.map((turn) => turn.speaker))].sort();
  const duration = Math.max(transcript.duration_seconds ?? 0, ...turns.map((turn) => turn.end), 1);
  const least = duration / 400;
  return (
    <svg class="timeline" viewBox={`0 0 ${duration} ${lanes.length}`} preserveAspectRatio="none" role="group" aria-label={t("ws.timeline")}>
      {turns.map((turn) => {
        const span = `${playerTime(turn.start)}–${playerTime(turn.end)}`;
        return (
          <a href={`#seg-${turn.index}`} class={colour(turn.speaker)} data-start={turn.start} data-spk={turn.speaker} data-span={span} aria-label={t("ws.turn", { name: turn.name, from: playerTime(turn.start), to: playerTime(turn.end) })}>
            <rect x={turn.start} y={lanes.indexOf(turn.speaker) + 0.15} width={Math.max(turn.end - turn.start, least)} height={0.7} />
          </a>
        );
      })}
    </svg>
  );
}

/** The search box over the transcript: hidden until the script, which does the searching, shows it. */
export function TranscriptSearch({ t }: { t: Translate }) {
  return (
    <div class="tsearch" role="search" hidden data-count={t("ws.searchCount", { n: "{n}", m: "{m}" })} data-none={t("ws.searchNone")}>
      <label class="inline">
        <span class="visually-hidden">{t("ws.search")}</span>
        <input type="search" id="tsearch" placeholder={t("ws.search")} autocomplete="off" />
      </label>
      <button type="button" class="secondary" data-step="-1" aria-label={t("ws.searchPrev")}>
        ↑
      </button>
      <button type="button" class="secondary" data-step="1" aria-label={t("ws.searchNext")}>
        ↓
      </button>
      <output aria-live="polite" />
    </div>
  );
}

/** A line's word timings as one attribute: its words' character offsets and start times, in pairs. */
export const wordTimes = (words: MeetingWorkspace["words"][number] | undefined) => (words ? words.map((w) => `${w.offset} ${w.start}`).join(" ") : undefined);

/** A corrected line's history, newest first, with the form that takes back its last correction. */
export function LineHistory({ frame, base, index, entries, date, canUndo }: { frame: PageFrame; base: string; index: number; entries: LineCorrection[]; date: Intl.DateTimeFormat; canUndo: boolean }) {
  const { t } = frame;
  return (
    <details class="history">
      <summary>{t("ws.history", { count: entries.length })}</summary>
      <ol>
        {entries.map((entry) => (
          <li>
            {t("ws.historyWas", { text: entry.previousText })}{" "}
            <span class="muted small">{t("ws.historyBy", { author: entry.system ? t("ws.historyGlossary") : (entry.author ?? "?"), date: date.format(new Date(entry.createdAt)) })}</span>
          </li>
        ))}
      </ol>
      {canUndo && (
        <form method="post" action={`${base}/segments/${index}/undo`}>
          <CsrfField frame={frame} />
          <button type="submit" class="secondary">
            {t("ws.undo")}
          </button>
        </form>
      )}
    </details>
  );
}

/** The follow button: shown by the script when the person scrolled away from the playing line. */
export function FollowButton({ t }: { t: Translate }) {
  return (
    <button type="button" id="follow" class="follow" hidden>
      {t("ws.follow")}
    </button>
  );
}

import type { ComponentChildren } from "preact";
import type { MeetingView } from "../../meetings/app.ts";
import { TRANSCRIPT_FORMATS, type TranscriptDocument } from "../../transcripts/app.ts";
import type { MessageKey } from "../i18n.ts";
import { CsrfField, Layout, Notice, PostButton, type PageFrame, type PageNotice } from "../layout.tsx";
import { formatDuration } from "./meetings.tsx";
import type { FormState } from "../form-state.ts";
import { MeetingDocuments, type DocumentPreview, type TemplateGroup } from "./meeting-documents.tsx";
import { MeetingRetention } from "./meeting-retention.tsx";
import { RedactionSummary } from "./redaction-field.tsx";
import { failureReason } from "../meeting/failure.ts";
import { FollowButton, LineHistory, PlayerMedia, SpeakerTimeline, speakerColours, TranscriptSearch, wordTimes, type WorkspaceProps } from "../meeting/workspace.tsx";
import { fieldAttrs } from "../form-state.ts";
import { ConfirmBox } from "./confirm.tsx";
import { FieldError } from "./fields.tsx";

/** A time on the transcript as a player shows it: m:ss, or h:mm:ss from the first hour. */
export function playerTime(seconds: number): string {
  const s = Math.floor(seconds);
  const pad = (n: number) => String(n).padStart(2, "0");
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${pad(m)}:${pad(s % 60)}`;
}

export interface MeetingPageProps {
  frame: PageFrame;
  meeting: MeetingView;
  transcript: TranscriptDocument | null;
  /** Every speaker label of the transcript with the name it shows now ("" when unattributed). */
  speakers: { label: string; name: string }[];
  /** The documents part: the form's templates by persona, and the documents written with their previews. */
  documents: { groups: TemplateGroup[]; defaultTemplate: string | null; documents: DocumentPreview[]; formState?: FormState | null };
  /** The AI report as safe HTML (web/markdown.ts), or null. */
  reportHtml: string | null;
  hasRecording: boolean;
  /** Documents asked for and not written yet. */
  pendingDocuments: number;
  /** The report is being written again: the meeting stays completed meanwhile. */
  rewritingReport: boolean;
  /** Indexes of the segments a person corrected. */
  corrected: ReadonlySet<number>;
  /** For a draft: the parts of its recording received so far, and when the idle sweep deletes it. */
  draft?: { parts: number; bytes: number; deletesAt: number };
  /** A sentence after a change ("Saved."), or a refusal of the last form. */
  notice?: PageNotice;
  /** What the signed-in user may do here (issue 25 item 7): the owner everything; a colleague reads, or reads and corrects. */
  access?: "owner" | "view" | "correct";
  /** For a colleague: the owner's email. */
  sharedBy?: string;
  /** The owner's share panel (pages/share-panel.tsx). */
  sharePanel?: ComponentChildren;
  /** The transcript workspace's extras (meeting/workspace.tsx): failure reason, video, word timings, history. */
  workspace?: WorkspaceProps;
}

function Csrf({ frame }: { frame: PageFrame }) {
  return <CsrfField frame={frame} />;
}

export function MeetingPage(props: MeetingPageProps) {
  const { frame, meeting, transcript } = props;
  const { t } = frame;
  const base = `/meetings/${meeting.id}`;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" });
  const owner = (props.access ?? "owner") === "owner";
  const canCorrect = owner || props.access === "correct";
  const ws = props.workspace;
  const failed = meeting.status === "failed";
  const colour = speakerColours(transcript?.speakers ?? props.speakers.map((s) => s.label));
  const busy = meeting.status === "queued" || meeting.status === "processing" || props.pendingDocuments > 0 || props.rewritingReport;
  // Documents being written for a completed meeting: their stage, never the meeting's "Completed".
  const writingDocuments = props.pendingDocuments > 0 && !props.rewritingReport && meeting.status === "completed";
  // A refused form of this page (form-state.ts), for the form it came from.
  const details = frame.formState?.values.for === "details" ? frame.formState : null;
  return (
    <Layout frame={frame}>
      <h1>{meeting.title}</h1>
      <p class="meta">
        <span class={`badge ${meeting.status}`}>{t(`status.${meeting.status}` as MessageKey)}</span> {date.format(new Date(meeting.recorded_at))}
        {meeting.duration_seconds !== null && ` · ${formatDuration(meeting.duration_seconds)}`}
        {meeting.client && ` · ${(meeting.client as { name?: string }).name ?? ""}`}
        {meeting.tags.length > 0 && ` · ${meeting.tags.map((tag) => `#${tag}`).join(" ")}`}
      </p>
      {!owner && (
        <p class="notice shared-by" role="note">
          {t(canCorrect ? "shared.bannerCorrect" : "shared.bannerView", { owner: props.sharedBy ?? "" })}
        </p>
      )}
      <RedactionSummary frame={frame} redaction={meeting.redaction} />
      <Notice notice={props.notice} />
      {busy && (
        <section id="progress" data-progress-url={`${base}/progress`} aria-live="polite">
          <h2>{t(writingDocuments ? "meeting.writing" : "meeting.processing")}</h2>
          <progress max={100} value={0} aria-label={t("meeting.processing")} />
          <p class="muted" data-stage>
            {writingDocuments ? t("docs.stage.queued") : t(`status.${meeting.status}` as MessageKey)}
          </p>
          <noscript>
            <p>
              <a href={base}>{t("meeting.refresh")}</a>
            </p>
          </noscript>
        </section>
      )}
      {props.draft && (
        <section aria-labelledby="draft-title" class="notice">
          <h2 id="draft-title">{t("draft.title")}</h2>
          <p>{t("draft.body", { parts: props.draft.parts, megabytes: (props.draft.bytes / 1e6).toFixed(1) })}</p>
          <p>
            <strong>{t("draft.deletion", { date: date.format(new Date(props.draft.deletesAt)) })}</strong>
          </p>
          {owner && props.draft.parts > 0 && (
            <PostButton frame={frame} action={`${base}/finish`} label={t("draft.finish")} />
          )}
        </section>
      )}
      {meeting.status === "failed" && (
        <p class="error" role="alert">
          {t(failureReason(ws?.failureCode ?? null))}
        </p>
      )}
      <div class="meeting">
        <div class="main-column">
          {props.hasRecording && !failed && (
            <section class="player" aria-label={t("meeting.player")}>
              <PlayerMedia base={base} video={ws?.video ?? false} t={t} />
              {transcript && <SpeakerTimeline transcript={transcript} colour={colour} t={t} />}
              <div class="player-tools">
                <label class="inline">
                  {t("meeting.speed")}
                  <select id="speed">
                    {[0.75, 1, 1.25, 1.5, 1.75, 2].map((rate) => (
                      <option value={rate} selected={rate === 1}>{`${rate}×`}</option>
                    ))}
                  </select>
                </label>
                <p class="shortcuts muted">
                  <kbd>Alt</kbd>+<kbd>K</kbd> {t("meeting.key.play")} · <kbd>Alt</kbd>+<kbd>J</kbd> {t("meeting.key.back")} · <kbd>Alt</kbd>+<kbd>L</kbd>{" "}
                  {t("meeting.key.forward")}
                </p>
              </div>
            </section>
          )}
          <section aria-labelledby="transcript-title">
            <h2 id="transcript-title">{t("meeting.transcript")}</h2>
            {transcript && <TranscriptSearch t={t} />}
            {transcript && props.hasRecording && <FollowButton t={t} />}
            {transcript ? (
              <ol class="transcript" data-csrf={canCorrect ? frame.csrfToken : undefined} data-save={t("meeting.saveLine")} data-cancel={t("meeting.cancel")} data-corrected={t("meeting.corrected")}>
                {transcript.segments.map((segment, index) => (
                  <li id={`seg-${index}`} data-start={segment.start} data-end={segment.end} data-index={index} class={`${colour(segment.speaker)}${props.corrected.has(index) ? " corrected" : ""}`}>
                    {props.hasRecording ? (
                      <a class="ts" href={`${base}/audio#t=${segment.start}`} data-start={segment.start} aria-label={t("meeting.playFrom", { time: playerTime(segment.start) })}>
                        {playerTime(segment.start)}
                      </a>
                    ) : (
                      <span class="ts">{playerTime(segment.start)}</span>
                    )}{" "}
                    <span class="speaker" data-spk={segment.speaker}>{segment.speaker_name ?? segment.speaker}</span>{" "}
                    {canCorrect && (
                      <a class="edit" href={`${base}/segments/${index}/edit`} aria-label={t("meeting.correctLine", { time: playerTime(segment.start) })}>
                        {t("meeting.correct")}
                      </a>
                    )}
                    {props.corrected.has(index) && <span class="muted small"> · {t("meeting.corrected")}</span>}
                    <p data-w={props.hasRecording ? wordTimes(ws?.words[index]) : undefined}>{segment.text}</p>
                    {ws?.history.get(index) && <LineHistory frame={frame} base={base} index={index} entries={ws.history.get(index)!} date={date} canUndo={canCorrect} />}
                  </li>
                ))}
              </ol>
            ) : (
              <p class="muted">{t("meeting.noTranscript")}</p>
            )}
          </section>
        </div>
        <div class="side-column">
          {canCorrect && props.speakers.length > 0 && (
            <section aria-labelledby="speakers-title">
              <h2 id="speakers-title">{t("meeting.speakers")}</h2>
              <form class="stack" id="speaker-names" method="post" action={`${base}/speakers`} data-saved={t("ws.namesSaved")}>
                <CsrfField frame={frame} />
                {props.speakers.map((speaker) => (
                  <label>
                    <span>
                      <span class={`swatch ${colour(speaker.label)}`} aria-hidden="true" /> {speaker.label}
                    </span>
                    <input name={`speaker.${speaker.label}`} value={speaker.name} maxLength={200} placeholder={t("meeting.speakerUnnamed")} />
                  </label>
                ))}
                <button type="submit">{t("meeting.saveSpeakers")}</button>
                <output class="muted" aria-live="polite" />
              </form>
            </section>
          )}
          {owner && (
          <section aria-labelledby="details-title">
            <h2 id="details-title">{t("meeting.details")}</h2>
            <form class="stack" method="post" action={`${base}/details`}>
              <CsrfField frame={frame} />
              <label>
                {t("meeting.field.title")}
                <input name="title" value={details ? details.values.title : meeting.title} required maxLength={300} {...fieldAttrs("title", details)} />
              </label>
              <FieldError name="title" state={details} t={t} />
              <label>
                {t("meetings.client")}
                <input name="client" value={details ? details.values.client : ((meeting.client as { name?: string } | null)?.name ?? "")} maxLength={200} {...fieldAttrs("client", details)} />
              </label>
              <FieldError name="client" state={details} t={t} />
              <label>
                {t("meeting.field.tags")}
                <input name="tags" value={details ? details.values.tags : meeting.tags.join(", ")} maxLength={1100} {...fieldAttrs("tags", details, "tags-help")} />
              </label>
              <FieldError name="tags" state={details} t={t} />
              <small id="tags-help" class="muted">
                {t("meeting.tagsHelp")}
              </small>
              <button type="submit">{t("meeting.save")}</button>
            </form>
          </section>
          )}
          {owner && <MeetingRetention frame={frame} meeting={meeting} />}
          {props.sharePanel}
          <section aria-labelledby="downloads-title">
            <h2 id="downloads-title">{t("meeting.downloads")}</h2>
            {transcript && (
              <p>
                {t("meeting.transcript")}:{" "}
                {TRANSCRIPT_FORMATS.map((format, i) => (
                  <>
                    {i > 0 && " · "}
                    <a href={`${base}/transcript/${format}`} download>
                      {format.toUpperCase()}
                    </a>
                  </>
                ))}
              </p>
            )}
            {props.hasRecording && (
              <p>
                <a href={`${base}/audio`} download>
                  {t("docs.recording")}
                </a>
              </p>
            )}
            {meeting.summary && (
              <p>
                <a href={`${base}/report/md`} download>
                  {t("meeting.reportMd")}
                </a>
              </p>
            )}
            {transcript && (
              <p>
                <button type="button" class="secondary" data-copy-url={`${base}/export/md`} data-copied={t("meeting.copied")} hidden>
                  {t("meeting.copyExport")}
                </button>{" "}
                <a href={`${base}/export/md`}>{t("meeting.exportMd")}</a>
              </p>
            )}
          </section>
        </div>
      </div>
      <section aria-labelledby="report-title">
        <h2 id="report-title">{t("meeting.report")}</h2>
        {props.reportHtml ? <article class="report" dangerouslySetInnerHTML={{ __html: props.reportHtml }} /> : <p class="muted">{t("meeting.noReport")}</p>}
        {owner && meeting.status === "completed" && transcript && (
          <form method="post" action={`${base}/report/regenerate`}>
            <CsrfField frame={frame} />
            <p class="muted">{t("meeting.regenerateHelp")}</p>
            <button type="submit" class="secondary">
              {t("meeting.regenerate")}
            </button>
          </form>
        )}
      </section>
      {!failed && <MeetingDocuments frame={frame} meetingId={meeting.id} {...props.documents} pendingDocuments={props.pendingDocuments} canWrite={meeting.summary !== null} owner={owner} />}
      {owner && (
      <section aria-labelledby="delete-title" class="danger">
        <h2 id="delete-title">{t("meeting.delete")}</h2>
        <form class="stack" method="post" action={`${base}/delete`} data-confirm={t("err.confirm.deleteMeetingAsk")}>
          <CsrfField frame={frame} />
          <ConfirmBox label={t("meeting.deleteConfirm")} />
          <button type="submit" class="danger">
            {t("meeting.deleteButton")}
          </button>
        </form>
      </section>
      )}
    </Layout>
  );
}

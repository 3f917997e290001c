import { CsrfField, Layout, type PageFrame } from "../layout.tsx";
import { playerTime } from "./meeting.tsx";

/** Correcting one transcript line without JavaScript: the line's words in a form. */
export function SegmentEditPage(props: { frame: PageFrame; meetingId: string; index: number; start: number; speaker: string; text: string; error?: string }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("meeting.correctLine", { time: playerTime(props.start) })}</h1>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <form class="stack wide" method="post" action={`/meetings/${props.meetingId}/segments/${props.index}`}>
        <CsrfField frame={frame} />
        <label>
          {props.speaker}
          <textarea name="text" rows={4} required maxLength={5000}>
            {props.text}
          </textarea>
        </label>
        <button type="submit">{t("meeting.saveLine")}</button>
        <a href={`/meetings/${props.meetingId}#seg-${props.index}`}>{t("meeting.cancel")}</a>
      </form>
    </Layout>
  );
}

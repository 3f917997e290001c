import { CsrfField, Layout, type PageFrame } from "../layout.tsx";
import type { RedactionDefaults } from "../../meetings/app.ts";
import { FieldError, TitleAndLanguage, VocabularyField } from "./fields.tsx";
import { fieldAttrs } from "../form-state.ts";
import { RedactionField } from "./redaction-field.tsx";
import { RECORDING_ACCEPT } from "../media/recording-types.ts";
import { fieldErrorId } from "../form-state.ts";

/**
 * Upload a recording. Without JavaScript the form posts as it is; with it, the uploader island
 * sends the file in parts that survive a dropped connection, with a progress bar. The CSRF token rides in the action's query string: a
 * multipart body is the API's own upload format, which has no place for it.
 */
export function UploadPage({ frame, maxBytes, redaction, fileError }: { frame: PageFrame; maxBytes: number; redaction: RedactionDefaults; fileError?: string }) {
  const { t } = frame;
  // A refused form's input and messages (form-state.ts): the text form's say so (values.for).
  const state = frame.formState;
  const textState = state?.values.for === "text" ? state : null;
  const uploadState = state && !textState ? state : null;
  return (
    <Layout frame={frame}>
      <h1>{t("upload.title")}</h1>
      <form
        id="upload"
        class="stack"
        method="post"
        action={`/meetings/new?_csrf=${encodeURIComponent(frame.csrfToken ?? "")}`} enctype="multipart/form-data"
        data-max-bytes={maxBytes}
        data-sending={t("upload.sending")}
        data-processing={t("upload.processing")}
        data-failed={t("upload.failed")}
        data-too-large={t("upload.tooLarge")}
        data-retrying={t("upload.retrying")}
        data-not-recording={t("upload.notRecording")}
        data-bytes={t("upload.bytes")}
        data-refused={t("upload.refused")}
        data-csrf={frame.csrfToken}
      >
        <label>
          {t("upload.file")}
          <input type="file" name="file" required accept={RECORDING_ACCEPT} aria-describedby={fieldErrorId("file")} aria-invalid={fileError ? "true" : undefined} />
        </label>
        {/* FieldError's place, always there: the uploader island writes into it before anything is sent. */}
        <p class="field-error" id={fieldErrorId("file")} role="alert" data-file-error hidden={!fileError}>
          {fileError}
        </p>
        <TitleAndLanguage frame={frame} state={uploadState} />
        <label>
          {t("meeting.field.tags")}
          <input name="tags" maxLength={1100} />
        </label>
        <VocabularyField frame={frame} state={uploadState} />
        <RedactionField frame={frame} defaults={redaction} />
        <progress max={100} value={0} hidden aria-label={t("upload.progress")} aria-valuemin={0} aria-valuemax={100} aria-valuenow={0} />
        <p class="muted" data-upload-bytes />
        <p class="muted" data-upload-status role="status" aria-live="polite" />
        <button type="submit">{t("upload.submit")}</button>
      </form>
      <section aria-labelledby="text-title">
        <h2 id="text-title">{t("text.title")}</h2>
        <p class="muted">{t("text.help")}</p>
        <form class="stack wide" method="post" action="/meetings/text" enctype="multipart/form-data">
          <CsrfField frame={frame} />
          <TitleAndLanguage frame={frame} state={textState} />
          <VocabularyField frame={frame} state={textState} />
          <RedactionField frame={frame} defaults={redaction} />
          <label>
            {t("text.paste")}
            <textarea name="text" rows={8} placeholder={"[00:00:05] Alice: …\nBob: …"} {...fieldAttrs("text", textState)}>
              {textState?.values.text}
            </textarea>
          </label>
          <FieldError name="text" state={textState} t={t} />
          <label>
            {t("text.file")}
            <input type="file" name="text_file" accept=".txt,.vtt,.srt,.sbv,text/plain,text/vtt,application/x-subrip" {...fieldAttrs("text_file", textState)} />
          </label>
          <FieldError name="text_file" state={textState} t={t} />
          <button type="submit">{t("text.submit")}</button>
        </form>
      </section>
    </Layout>
  );
}

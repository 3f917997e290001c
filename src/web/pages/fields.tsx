import type { PageFrame } from "../layout.tsx";

export const LANGUAGES = ["auto", "en", "fr", "de", "es", "it", "nl", "pt"] as const;

/** A new meeting's title and spoken language: the upload, text and record forms all ask them. */
export function TitleAndLanguage({ frame }: { frame: PageFrame }) {
  const { t } = frame;
  return (
    <>
      <label>
        {t("meeting.field.title")}
        <input name="title" maxLength={300} />
      </label>
      <label>
        {t("upload.language")}
        <select name="language">
          {LANGUAGES.map((code) => (
            <option value={code}>{code === "auto" ? t("upload.languageAuto") : code}</option>
          ))}
        </select>
      </label>
    </>
  );
}

import type { MessageKey } from "../i18n.ts";
import { fieldAttrs, type FormState } from "../form-state.ts";
import { CsrfField, type PageFrame } from "../layout.tsx";
import { FieldError } from "./fields.tsx";

/** A template as the document form offers it: its name and one-line description in the person's language. */
export interface TemplateChoice {
  id: string;
  name: string;
  description: string | null;
}

/** A persona's templates under its name (the catalogue's order: the shipped personas first). */
export interface TemplateGroup {
  id: string;
  name: string;
  templates: TemplateChoice[];
}

/** A written document as the page shows it: its title, when, and its Markdown as safe HTML (web/markdown.ts). */
export interface DocumentPreview {
  id: string;
  title: string;
  createdAt: number;
  html: string;
}

export interface MeetingDocumentsProps {
  frame: PageFrame;
  meetingId: string;
  documents: DocumentPreview[];
  groups: TemplateGroup[];
  /** The template chosen when the form opens; null: the person's own prompt. */
  defaultTemplate: string | null;
  /** Documents asked for and not written yet. */
  pendingDocuments: number;
  /** Documents can be asked for: the AI report is there. */
  canWrite: boolean;
  /**
   * The meeting's owner (sharing/): a colleague it is shared with reads and downloads the documents,
   * and neither asks for one (billed to the owner) nor deletes one.
   */
  owner: boolean;
  /** A refused request for a document, back with its input and the message at its field (form-state.ts). */
  formState?: FormState | null;
}

const FORMATS = ["md", "pdf", "docx"] as const;

/**
 * The meeting page's documents (issue 25, item 5): each written document with its downloads, a
 * preview rendered in the page (the newest open), and its deletion behind a confirmation; then the
 * form, its templates grouped by persona with a one-line description each, one chosen already.
 * Everything works without the page's script: the confirmation is a disclosure, not a dialog.
 */
export function MeetingDocuments(props: MeetingDocumentsProps) {
  const { frame } = props;
  const { t } = frame;
  const base = `/meetings/${props.meetingId}`;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  const newest = props.documents.at(-1)?.id;
  return (
    <section aria-labelledby="documents-title" class="documents-section">
      <h2 id="documents-title">{t("meeting.documents")}</h2>
      {props.documents.length > 0 && (
        <ul class="documents">
          {props.documents.map((doc) => (
            <li id={`document-${doc.id}`} class="document">
              <h3>{doc.title}</h3>
              <p class="muted small">
                {t("docs.written", { date: date.format(new Date(doc.createdAt)) })} ·{" "}
                {FORMATS.map((format, i) => (
                  <>
                    {i > 0 && " · "}
                    <a href={`${base}/documents/${doc.id}/${format}`} download aria-label={t("docs.download", { title: doc.title, format: format.toUpperCase() })}>
                      {format.toUpperCase()}
                    </a>
                  </>
                ))}
              </p>
              <details class="doc-preview" open={doc.id === newest}>
                <summary>{t("docs.preview")}</summary>
                <article class="report" dangerouslySetInnerHTML={{ __html: doc.html }} />
              </details>
              {props.owner && (
              <details class="confirm">
                <summary aria-label={t("docs.deleteNamed", { title: doc.title })}>{t("docs.delete")}</summary>
                <form method="post" action={`${base}/documents/${doc.id}/delete`}>
                  <CsrfField frame={frame} />
                  <p>{t("docs.deleteConfirm", { title: doc.title })}</p>
                  <button type="submit" class="danger">
                    {t("docs.deleteButton")}
                  </button>
                </form>
              </details>
              )}
            </li>
          ))}
        </ul>
      )}
      {props.pendingDocuments > 0 && (
        <p class="muted" role="status">
          {t("meeting.documentsPending", { count: props.pendingDocuments })}
        </p>
      )}
      {!props.owner ? (
        props.documents.length === 0 && props.pendingDocuments === 0 && <p class="muted">{t("shared.noDocuments")}</p>
      ) : props.canWrite ? (
        <DocumentForm {...props} base={base} />
      ) : (
        <p class="muted">{t("meeting.documentsWait")}</p>
      )}
    </section>
  );
}

function DocumentForm(props: MeetingDocumentsProps & { base: string }) {
  const { frame, groups, formState } = props;
  const { t } = frame;
  // Back from a refusal (only an empty prompt is refused here): "Your own prompt" chosen again.
  const kept = formState?.values.template_id;
  const defaultTemplate = kept === "custom" ? null : (kept ?? props.defaultTemplate);
  return (
    <form class="stack wide" method="post" action={`${props.base}/documents`}>
      <CsrfField frame={frame} />
      <fieldset class="templates" aria-describedby="templates-help">
        <legend>{t("meeting.template")}</legend>
        <small id="templates-help" class="muted">
          {t("docs.templateHelp")}
        </small>
        {groups.map((group) => (
          <details class="persona" open={group.templates.some((template) => template.id === defaultTemplate)}>
            <summary>
              {group.name} <span class="muted">({group.templates.length})</span>
            </summary>
            {group.templates.map((template) => (
              <label class="choice">
                <input type="radio" name="template_id" value={template.id} checked={template.id === defaultTemplate} />
                <span>
                  <strong>{template.name}</strong>
                  {template.description && <small class="muted">{template.description}</small>}
                </span>
              </label>
            ))}
          </details>
        ))}
        <label class="choice">
          <input type="radio" name="template_id" value="" checked={defaultTemplate === null} />
          <span>
            <strong>{t("meeting.customPrompt")}</strong>
            <small class="muted">{t("docs.customHelp")}</small>
          </span>
        </label>
      </fieldset>
      <label>
        {t("meeting.prompt")}
        <textarea name="prompt" rows={3} maxLength={20000} aria-describedby="prompt-help" {...fieldAttrs("prompt", formState)}>
          {formState?.values.prompt}
        </textarea>
      </label>
      <FieldError name="prompt" state={formState} t={t} />
      <small id="prompt-help" class="muted">
        {t("docs.promptHelp")}
      </small>
      <label class="inline">
        <input type="checkbox" name="include_transcript" value="true" checked={formState?.values.include_transcript === "true"} /> {t("meeting.includeTranscript")}
      </label>
      <button type="submit">{t("meeting.generate")}</button>
    </form>
  );
}

/** A persona's name in the person's language: the shipped ones are translated, a firm's own shows its id. */
export function personaName(t: (key: MessageKey) => string, id: string | null): string {
  if (id === null) return t("docs.persona.other");
  const key = `docs.persona.${id}` as MessageKey;
  return ["general", "lawyer", "sales", "hr", "medical"].includes(id) ? t(key) : id;
}

import type { ComponentChildren } from "preact";
import type { SharePermission, ShareRow } from "../../sharing/app.ts";
import { SHARE_PERMISSIONS } from "../../sharing/app.ts";
import { fieldAttrs, type FormState } from "../form-state.ts";
import type { MessageKey } from "../i18n.ts";
import { CsrfField, type PageFrame } from "../layout.tsx";
import { FieldError } from "./fields.tsx";

/**
 * The owner's share panel on the meeting page (issue 25 item 7): add a colleague by email with what
 * they may do, see whom it is shared with, stop sharing (confirmed in place: a <details> opens the
 * confirmation, no script needed). A refused email comes back with the input and a message at it.
 */
export function SharePanel({ frame, meetingId, shares, state }: { frame: PageFrame; meetingId: string; shares: ShareRow[]; state: FormState | null }) {
  const { t } = frame;
  const base = `/meetings/${meetingId}/shares`;
  const chosen = (state?.values.permission ?? "view") as SharePermission;
  return (
    <section aria-labelledby="share-title" id="share" class="share-panel">
      <h2 id="share-title">{t("share.title")}</h2>
      <p class="muted small">{t("share.intro")}</p>
      <form class="stack" method="post" action={base}>
        <CsrfField frame={frame} />
        <label>
          {t("share.email")}
          <input name="email" type="email" autocomplete="off" required maxLength={320} value={state?.values.email ?? ""} {...fieldAttrs("email", state)} />
        </label>
        <FieldError name="email" state={state} t={t} />
        <fieldset>
          <legend>{t("share.permission")}</legend>
          {SHARE_PERMISSIONS.map((permission) => (
            <label class="inline">
              <input type="radio" name="permission" value={permission} checked={permission === chosen} /> {t(`share.permission.${permission}` as MessageKey)}
            </label>
          ))}
        </fieldset>
        <button type="submit">{t("share.submit")}</button>
      </form>
      <h3>{t("share.list")}</h3>
      {shares.length === 0 ? (
        <p class="muted">{t("share.none")}</p>
      ) : (
        <ul class="shares">
          {shares.map((share) => (
            <li>
              <span class="share-who">{share.name ? `${share.name} <${share.email}>` : share.email}</span>{" "}
              <span class="muted small">{t(`share.permission.${share.permission}` as MessageKey)}</span>
              <Confirm label={t("share.revoke")}>
                <form method="post" action={`${base}/${share.id}/revoke`}>
                  <CsrfField frame={frame} />
                  <p>{t("share.revokeConfirm", { email: share.email })}</p>
                  <button type="submit" class="danger">
                    {t("share.revokeYes")}
                  </button>
                </form>
              </Confirm>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A destructive action behind its confirmation: the summary opens it, the form inside does it. */
function Confirm({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <details class="confirm">
      <summary>{label}</summary>
      {children}
    </details>
  );
}

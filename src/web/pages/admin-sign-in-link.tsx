import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../auth/app.ts";
import { Layout, type PageFrame } from "../layout.tsx";
import { fieldAttrs } from "../form-state.ts";
import { FieldError } from "./fields.tsx";

/**
 * The page a one-time sign-in link opens (an administrator made it): the account's email and a
 * form to choose a password; submitting it spends the link and signs in. Without `email` the link
 * is not valid (used, expired, replaced) and the page says so.
 */
export function SignInLinkPage(props: { frame: PageFrame; formToken: string; token: string; email?: string; error?: string }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("link.title")}</h1>
      {props.error && (
        <p class="error" role="alert" id="link-error">
          {props.error}
        </p>
      )}
      {props.email && (
        <>
          <p>{t("link.intro", { email: props.email })}</p>
          <form class="stack" method="post" action={`/login/link/${props.token}`}>
            <input type="hidden" name="_csrf" value={props.formToken} />
            <input type="email" name="email" autocomplete="username" value={props.email} hidden readOnly />
            <label>
              {t("link.password", { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH })}
              <input type="password" name="password" autocomplete="new-password" required minLength={MIN_PASSWORD_LENGTH} maxLength={MAX_PASSWORD_LENGTH} {...fieldAttrs("password", frame.formState)} />
            </label>
            <FieldError name="password" state={frame.formState} t={t} />
            <button type="submit">{t("link.submit")}</button>
          </form>
        </>
      )}
    </Layout>
  );
}

import { Layout, type PageFrame } from "../layout.tsx";

export function LoginPage(props: { frame: PageFrame; formToken: string; email?: string; error?: string; ssoName?: string; next: string }) {
  const { frame, formToken, email, error, ssoName, next } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("login.title")}</h1>
      {error && (
        <p class="error" role="alert" id="login-error">
          {error}
        </p>
      )}
      <form class="stack" method="post" action="/login">
        <input type="hidden" name="_csrf" value={formToken} />
        <input type="hidden" name="next" value={next} />
        <label>
          {t("login.email")}
          <input type="email" name="email" autocomplete="username" required value={email ?? ""} aria-describedby={error ? "login-error" : undefined} />
        </label>
        <label>
          {t("login.password")}
          <input type="password" name="password" autocomplete="current-password" required maxLength={256} />
        </label>
        <button type="submit">{t("login.submit")}</button>
      </form>
      {ssoName && (
        <p>
          <a class="button secondary-link" href={next === "/meetings" ? "/login/sso" : `/login/sso?next=${encodeURIComponent(next)}`}>
            {t("login.sso", { name: ssoName })}
          </a>
        </p>
      )}
    </Layout>
  );
}

import { Layout, type PageFrame } from "../layout.tsx";

export function LoginPage({ frame, formToken, email, error, ssoName }: { frame: PageFrame; formToken: string; email?: string; error?: string; ssoName?: string }) {
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
          <a class="button secondary-link" href="/login/sso">
            {t("login.sso", { name: ssoName })}
          </a>
        </p>
      )}
    </Layout>
  );
}

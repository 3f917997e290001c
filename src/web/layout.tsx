import type { ComponentChildren } from "preact";
import type { Locale } from "../auth/users.ts";
import type { Translate } from "./i18n.ts";

export interface PageFrame {
  locale: Locale;
  t: Translate;
  title: string;
  /** The signed-in user's CSRF token; absent on the sign-in page. */
  csrfToken?: string;
}

/** The HTML document around every page: one stylesheet from this origin, a skip link, the navigation when signed in. */
export function Layout({ frame, children }: { frame: PageFrame; children: ComponentChildren }) {
  const { t } = frame;
  return (
    <html lang={frame.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${frame.title} · ${t("app.name")}`}</title>
        <link rel="stylesheet" href="/assets/app.css" />
        <script type="module" src="/assets/app.js" />
      </head>
      <body>
        <a class="skip" href="#main">
          {frame.title}
        </a>
        <header>
          <a class="brand" href="/meetings">
            {t("app.name")}
          </a>
          {frame.csrfToken && (
            <nav aria-label={t("app.name")}>
              <a href="/meetings">{t("nav.meetings")}</a>
              <a href="/record">{t("nav.record")}</a>
              <a href="/meetings/new">{t("nav.upload")}</a>
              <a href="/settings">{t("nav.settings")}</a>
              <form method="post" action="/logout">
                <input type="hidden" name="_csrf" value={frame.csrfToken} />
                <button class="link" type="submit">
                  {t("nav.signOut")}
                </button>
              </form>
            </nav>
          )}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}

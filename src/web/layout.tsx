import type { ComponentChildren } from "preact";
import type { Locale } from "../auth/app.ts";
import { FAVICON_PATH } from "./favicon.ts";
import type { Translate } from "./i18n.ts";
import type { FormState } from "./form-state.ts";
import { FormError } from "./pages/fields.tsx";

export interface PageFrame {
  locale: Locale;
  t: Translate;
  title: string;
  /** The signed-in user's CSRF token; absent on the sign-in page. */
  csrfToken?: string;
  /** The page's path, to mark where the user is in the navigation. */
  path?: string;
  /** The signed-in user is an administrator: the navigation links the console (which checks again). */
  admin?: boolean;
  /** What a refused form left for this page (form-state.ts): its own message is shown above the page, its fields' by the page. */
  formState?: FormState | null;
}

/** A navigation link, marked as the current page (aria-current) when the user is in its part of the app. */
function NavLink({ frame, href, label }: { frame: PageFrame; href: string; label: string }) {
  const path = frame.path ?? "";
  const here = href === "/meetings" ? path === "/meetings" || (path.startsWith("/meetings/") && path !== "/meetings/new") : path === href || path.startsWith(`${href}/`);
  return (
    <a href={href} aria-current={here ? "page" : undefined}>
      {label}
    </a>
  );
}

/** The HTML document around every page: one stylesheet and one icon from this origin, a skip link, the navigation when signed in. */
export function Layout({ frame, children }: { frame: PageFrame; children: ComponentChildren }) {
  const { t } = frame;
  return (
    <html lang={frame.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${frame.title} · ${t("app.name")}`}</title>
        <link rel="icon" href={FAVICON_PATH} type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/app.css" />
        <script type="module" src="/assets/app.js" />
      </head>
      <body>
        <a class="skip" href="#main">
          {t("a11y.skip")}
        </a>
        <header>
          <a class="brand" href="/meetings">
            {t("app.name")}
          </a>
          {frame.csrfToken && (
            <nav aria-label={t("app.name")}>
              <NavLink frame={frame} href="/meetings" label={t("nav.meetings")} />
              <NavLink frame={frame} href="/shared" label={t("nav.shared")} />
              <NavLink frame={frame} href="/record" label={t("nav.record")} />
              <NavLink frame={frame} href="/meetings/new" label={t("nav.upload")} />
              <NavLink frame={frame} href="/settings" label={t("nav.settings")} />
              {frame.admin && <NavLink frame={frame} href="/admin" label={t("nav.admin")} />}
              <form method="post" action="/logout">
                <CsrfField frame={frame} />
                <button class="link" type="submit">
                  {t("nav.signOut")}
                </button>
              </form>
            </nav>
          )}
        </header>
        <main id="main">
          <FormError state={frame.formState} t={t} />
          {children}
        </main>
      </body>
    </html>
  );
}

/** The session's CSRF token in a form (every state-changing form carries it). */
export function CsrfField({ frame }: { frame: PageFrame }) {
  return <input type="hidden" name="_csrf" value={frame.csrfToken} />;
}

export interface PageNotice {
  text: string;
  error?: boolean;
}

/** A sentence after a form: a status, or an alert when something was refused. */
export function Notice({ notice }: { notice?: PageNotice }) {
  if (!notice) return null;
  return (
    <p class={notice.error ? "error" : "notice"} role={notice.error ? "alert" : "status"}>
      {notice.text}
    </p>
  );
}

/** The link to the next page of a list, when there is one. */
export function NextPageLink({ frame, href }: { frame: PageFrame; href: string | null }) {
  if (!href) return null;
  return (
    <p>
      <a href={href}>{frame.t("meetings.next")}</a>
    </p>
  );
}

/** A secret shown this once (a new API key, a webhook signing secret), with a copy button. */
export function ShownOnce(props: { frame: PageFrame; heading: string; explanation: string; label: string; value: string }) {
  const { t } = props.frame;
  return (
    <section class="created-key" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title">{props.heading}</h2>
      <p>{props.explanation}</p>
      <label>
        {props.label}
        <input id="shown-once" readOnly value={props.value} />
      </label>
      <button type="button" class="secondary" data-copy-target="shown-once" data-copied={t("meeting.copied")} hidden>
        {t("keys.copy")}
      </button>
    </section>
  );
}

/** A form that is one button: an action on a thing (test, rotate, revoke, delete), with the CSRF token. */
export function PostButton(props: { frame: PageFrame; action: string; label: string; kind?: "secondary" | "danger"; ariaLabel?: string }) {
  return (
    <form method="post" action={props.action}>
      <CsrfField frame={props.frame} />
      <button type="submit" class={props.kind} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </form>
  );
}

import { Layout, type PageFrame } from "../layout.tsx";

/**
 * The one page for a path that is not a page (404), a refusal (403, 409, 413…) and a failure (500),
 * in the app's frame (with the navigation when signed in): its title, one plain sentence, the
 * request id when the service failed (to quote when reporting it; never a stack or a path), and a
 * way back.
 */
export function ErrorPage({ frame, message, requestId }: { frame: PageFrame; message: string; requestId?: string }) {
  const { t } = frame;
  const signedIn = frame.csrfToken !== undefined;
  return (
    <Layout frame={frame}>
      <h1>{frame.title}</h1>
      <p>{message}</p>
      {requestId && (
        <p class="muted" data-request-id={requestId}>
          {t("err.requestId", { id: requestId })}
        </p>
      )}
      <p>
        <a href={signedIn ? "/meetings" : "/login"}>{signedIn ? t("err.backHome") : t("err.signIn")}</a>
      </p>
    </Layout>
  );
}
